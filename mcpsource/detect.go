package mcpsource

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The argument names Detect takes for a query, a limit and a locator.
var (
	queryNames   = []string{"query", "q", "search", "search_query", "searchquery", "keywords", "terms"}
	limitNames   = []string{"limit", "max_results", "maxresults", "num_results", "numresults", "count", "top_k", "topk", "k", "n"}
	locatorNames = []string{"path", "uri", "url", "file_path", "filepath", "file"}
)

// schema is the part of a tool's input schema the mapping reads.
type schema struct {
	Properties map[string]struct {
		Type any `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func schemaOf(t *mcp.Tool) schema {
	var s schema
	if b, err := json.Marshal(t.InputSchema); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return s
}

// typeOf is the JSON type of the property name ("" when not declared or
// not one type).
func (s schema) typeOf(name string) string {
	p, ok := s.Properties[name]
	if !ok {
		return ""
	}
	switch t := p.Type.(type) {
	case string:
		return t
	case []any: // ["string", "null"]
		for _, x := range t {
			if x, ok := x.(string); ok && x != "null" {
				return x
			}
		}
	}
	return ""
}

func (s schema) has(name string) bool { _, ok := s.Properties[name]; return ok }

// tools is a server's mapping, checked against its tools.
type tools struct {
	mapping    Mapping
	searchArgs map[string]any // SearchArgs converted to the schema's types
	resources  bool           // the server offers resources/read
	// listResources: no search tool; a search lists the resources
	// (resources/list) and ranks them.
	listResources bool
}

// Detect maps a server's tools as New's Source would when settings name
// none: the search tool is one whose only required argument is a string
// named like a query (query, q, search, keywords, …), with an optional
// number argument named like a limit (limit, max_results, count, …); the
// read tool is one whose only required argument is a string named path,
// uri, url or file_path. A tool annotated as not read-only is never
// chosen. Among several, the name says: "search" for a search tool,
// "read" (then "text", "fetch", "get", "open") for a read tool; then the
// shorter name, then the first in order. Fields of m already set are
// kept.
func Detect(list []*mcp.Tool, m Mapping) Mapping {
	best := func(score func(t *mcp.Tool) int) *mcp.Tool {
		var pick *mcp.Tool
		top := 0
		for _, t := range list {
			if t.Annotations != nil && !t.Annotations.ReadOnlyHint {
				continue // declared as writing or acting: never guessed
			}
			sc := score(t)
			if sc <= 0 {
				continue
			}
			if pick == nil || sc > top || sc == top && (len(t.Name) < len(pick.Name) || len(t.Name) == len(pick.Name) && t.Name < pick.Name) {
				pick, top = t, sc
			}
		}
		return pick
	}
	only := func(t *mcp.Tool, names []string) string {
		s := schemaOf(t)
		if len(s.Required) != 1 || !slices.Contains(names, strings.ToLower(s.Required[0])) || s.typeOf(s.Required[0]) != "string" {
			return ""
		}
		return s.Required[0]
	}
	if m.SearchTool == "" {
		if t := best(func(t *mcp.Tool) int {
			if only(t, queryNames) == "" {
				return 0
			}
			return 1 + 2*boolInt(strings.Contains(strings.ToLower(t.Name), "search"))
		}); t != nil {
			m.SearchTool, m.QueryArg = t.Name, only(t, queryNames)
			m.LimitArg = ""
		}
	}
	if t := find(list, m.SearchTool); t != nil && m.QueryArg == "" && len(m.SearchArgs) == 0 {
		m.QueryArg = only(t, queryNames)
	}
	if t := find(list, m.SearchTool); t != nil && m.LimitArg == "" {
		s := schemaOf(t)
		for _, n := range limitNames {
			for p := range s.Properties {
				if strings.ToLower(p) == n && (s.typeOf(p) == "integer" || s.typeOf(p) == "number") && !slices.Contains(s.Required, p) {
					m.LimitArg = p
				}
			}
			if m.LimitArg != "" {
				break
			}
		}
	}
	if m.ReadTool == "" {
		if t := best(func(t *mcp.Tool) int {
			if only(t, locatorNames) == "" || t.Name == m.SearchTool {
				return 0
			}
			n := strings.ToLower(t.Name)
			sc := 1
			for word, w := range map[string]int{"read": 4, "text": 2, "fetch": 2, "get": 1, "open": 1, "media": -2, "list": -2, "info": -1, "tree": -2} {
				if strings.Contains(n, word) {
					sc += w
				}
			}
			return sc
		}); t != nil {
			m.ReadTool, m.URLArg = t.Name, only(t, locatorNames)
		}
	}
	if t := find(list, m.ReadTool); t != nil && m.URLArg == "" {
		m.URLArg = only(t, locatorNames)
	}
	return m
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func find(list []*mcp.Tool, name string) *mcp.Tool {
	if name == "" {
		return nil
	}
	i := slices.IndexFunc(list, func(t *mcp.Tool) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return list[i]
}

// mapTools checks the declared mapping against the server's tools and
// detects what it leaves out. A server without a search tool that offers
// resources (resources says) is searched by listing them.
func mapTools(list []*mcp.Tool, declared Mapping, resources bool) (tools, error) {
	for _, name := range []string{declared.SearchTool, declared.ReadTool} {
		if name != "" && find(list, name) == nil {
			return tools{}, fmt.Errorf("the server has no tool %q (it has %s): %w", name, toolNames(list), ErrNoTool)
		}
	}
	m := Detect(list, declared)
	st := find(list, m.SearchTool)
	if st == nil && resources && declared.SearchTool == "" {
		return tools{mapping: m, resources: true, listResources: true}, nil
	}
	if st == nil {
		return tools{}, fmt.Errorf("no search tool declared (search_tool) or detected among %s, and no resources to list: %w", toolNames(list), ErrNoTool)
	}
	ss := schemaOf(st)
	for _, a := range []string{m.QueryArg, m.LimitArg} {
		if a != "" && !ss.has(a) && len(ss.Properties) > 0 {
			return tools{}, fmt.Errorf("tool %s takes no argument %q: %w", st.Name, a, ErrNoTool)
		}
	}
	if m.QueryArg == "" && len(m.SearchArgs) == 0 {
		return tools{}, fmt.Errorf("tool %s: no query argument declared (query_arg) or detected, and no fixed arguments (search_args) to list with: %w", st.Name, ErrNoTool)
	}
	args := map[string]any{}
	for k, v := range m.SearchArgs {
		x, err := convert(v, ss.typeOf(k))
		if err != nil {
			return tools{}, fmt.Errorf("tool %s: search argument %s: %w", st.Name, k, err)
		}
		args[k] = x
	}
	if rt := find(list, m.ReadTool); rt != nil && m.URLArg == "" {
		return tools{}, fmt.Errorf("tool %s: no locator argument declared (url_arg) or detected: %w", rt.Name, ErrNoTool)
	}
	return tools{mapping: m, searchArgs: args, resources: resources}, nil
}

// convert reads text as the JSON type a schema gives it.
func convert(v, typ string) (any, error) {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", v)
		}
		return n, nil
	case "number":
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return x, nil
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", v)
		}
		return b, nil
	case "array":
		var list []any
		if err := json.Unmarshal([]byte(v), &list); err != nil {
			return []string{v}, nil
		}
		return list, nil
	}
	return v, nil
}

func toolNames(list []*mcp.Tool) string {
	if len(list) == 0 {
		return "no tools"
	}
	names := make([]string, 0, len(list))
	for _, t := range list {
		names = append(names, cleanLine(t.Name, 80))
		if len(names) == 30 {
			names = append(names, "…")
			break
		}
	}
	return strings.Join(names, ", ")
}
