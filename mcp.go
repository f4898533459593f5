package deepresearch

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/internal/mcpsource"
	"github.com/deepresearch/deepresearch/internal/search"
)

// MCPServer is an MCP server research searches and reads through
// (Config.MCPServers, SearchEngines' "mcp:NAME"): a child process spoken
// to over stdio (Command, with Env its whole environment) or a streamable
// HTTP endpoint (URL), and which of its tools search and read (Tools;
// detected by their schemas when not given). Its results are sources on
// the channel "mcp:NAME", located by the path or URI the server gives
// them; its output is untrusted text, bounded and cleaned like a page's.
// See docs/mcp-sources.md.
type MCPServer = mcpsource.Server

// MCPTools names an MCP server's search and read tools and their
// arguments (MCPServer.Tools).
type MCPTools = mcpsource.Mapping

// mcpFromSettings is mcp.servers as Config.MCPServers: each child's
// environment is its env, with PATH and HOME from the settings'
// environment unless env sets them (npx and node need them).
func mcpFromSettings(s config.Settings) map[string]MCPServer {
	if len(s.MCP.Servers) == 0 {
		return nil
	}
	out := make(map[string]MCPServer, len(s.MCP.Servers))
	for name, srv := range s.MCP.Servers {
		var env map[string]string
		if len(srv.Command) > 0 {
			env = maps.Clone(srv.Env)
			if env == nil {
				env = map[string]string{}
			}
			for _, k := range []string{"PATH", "HOME"} {
				if _, set := env[k]; !set && s.Getenv(k) != "" {
					env[k] = s.Getenv(k)
				}
			}
		}
		out[name] = MCPServer{Command: slices.Clone(srv.Command), Env: env, URL: srv.URL, Tools: MCPTools{
			SearchTool: srv.SearchTool, QueryArg: srv.QueryArg, LimitArg: srv.LimitArg, SearchArgs: maps.Clone(srv.SearchArgs),
			ReadTool: srv.ReadTool, URLArg: srv.URLArg}, Timeout: srv.Timeout}
	}
	return out
}

// mcpSources builds the MCP servers names lists ("mcp:NAME"), by name,
// for websearch.Build; none is connected yet.
func (r *Researcher) mcpSources(names []string) (map[string]search.Backend, error) {
	out := map[string]search.Backend{}
	for _, n := range names {
		name, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(n)), mcpsource.ChannelPrefix)
		if !ok {
			continue
		}
		srv, ok := r.cfg.MCPServers[name]
		if !ok {
			for k, v := range r.cfg.MCPServers {
				if strings.EqualFold(k, name) {
					srv, ok = v, true
				}
			}
		}
		if !ok {
			r.closeMCP()
			return nil, configErrorf("SearchEngines: %s: no MCP server %q in MCPServers", n, name)
		}
		log := r.log
		src, err := mcpsource.New(name, srv, mcpsource.Options{Clock: r.cfg.Clock, Progress: func(p mcpsource.Progress) {
			log.Debug().Str("mcp", p.Server).Str("tool", p.Tool).Float64("progress", p.Progress).Float64("total", p.Total).Str("message", p.Message).Msg("MCP tool progress")
		}})
		if err != nil {
			r.closeMCP()
			return nil, configErrorf("SearchEngines: %s: %v", n, err)
		}
		r.mcp = append(r.mcp, src)
		out[mcpsource.ChannelPrefix+name] = src
	}
	return out, nil
}

// closeMCP ends the sessions of the MCP servers and reaps their child
// processes.
func (r *Researcher) closeMCP() {
	for _, s := range r.mcp {
		if err := s.Close(); err != nil {
			r.log.Warn().Err(err).Msg("closing an MCP server")
		}
	}
	r.mcp = nil
}

// diagnoseMCP describes the MCP server search.providers names as name
// ("mcp:NAME"): its command or URL and, when call is true, the tools it is
// searched and read with, after connecting to it (a child process is
// started, and reaped before it returns).
func diagnoseMCP(ctx context.Context, s config.Settings, name string, call bool) Diagnosis {
	server := strings.TrimPrefix(name, mcpsource.ChannelPrefix)
	srv := mcpFromSettings(s)[server]
	d := Diagnosis{Part: "search", Provider: name, Detail: cmp.Or(srv.URL, strings.Join(srv.Command, " "))}
	if !call {
		return d
	}
	d.Checked = true
	src, err := mcpsource.New(server, srv, mcpsource.Options{})
	if err != nil {
		d.Err = err.Error()
		return d
	}
	defer src.Close()
	m, err := src.Tools(ctx)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	d.Detail += fmt.Sprintf(" (search: %s, read: %s)", cmp.Or(m.SearchTool, "resources/list"), cmp.Or(m.ReadTool, "resources/read"))
	return d
}
