package deepresearch

import (
	"strings"

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
