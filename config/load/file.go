package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch/config"
)

// maxFileSize bounds a configuration file.
const maxFileSize = 1 << 20

// findFile returns the path and contents of the configuration file to
// read: explicit if it is not "", else ./deepresearch.yaml, else
// deepresearch/config.yaml under the user's configuration directory
// ($XDG_CONFIG_HOME, or ~/.config, on Linux). It returns "" when explicit
// is "" and neither file exists; an explicit file must exist. A file found
// that way must be a regular file (a FIFO would block); the explicit one
// may be any file (--config /dev/stdin). Files over 1 MiB are refused.
func findFile(explicit string) (string, []byte, error) {
	if explicit != "" {
		data, err := readFile(explicit)
		if err != nil {
			return "", nil, err
		}
		return explicit, data, nil
	}
	candidates := []string{"deepresearch.yaml"}
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "deepresearch", "config.yaml"))
	}
	for _, path := range candidates {
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return "", nil, fmt.Errorf("config: %w", err)
		case !fi.Mode().IsRegular():
			return "", nil, fmt.Errorf("config: %s: not a regular file", path)
		}
		data, err := readFile(path)
		if err != nil {
			return "", nil, err
		}
		return path, data, nil
	}
	return "", nil, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("config: %s: larger than %d bytes", path, maxFileSize)
	}
	return data, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML reads a configuration file named name: a mapping of sections,
// each a mapping of keys to values. Every value is kept as written, as
// text, so that a file's values are read like environment variables (0123
// stays "0123" for a string setting): a single value becomes a string, a
// list (search.providers, fetch.allow) a []string, and model.prices a
// map[string]map[string]string of "provider:name" to input and output.
// It returns the values by key and the line of each key; a price's lines
// are under "model.prices[provider:name]" and
// "model.prices[provider:name].input" (or output). Keys with a null value
// are left out. Unknown and repeated keys and values of the wrong shape
// are errors, all of them reported.
func parseYAML(name string, data []byte) (vals map[string]any, lines map[string]int, err error) {
	vals, lines = map[string]any{}, map[string]int{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			name, msg = name+":"+m[1], m[2]
		}
		return nil, nil, &config.Error{Source: name, Err: config.Reason(config.ErrSyntax, "%s", msg)}
	}
	if len(doc.Content) == 0 {
		return vals, lines, nil // empty file
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return vals, lines, nil
	}
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d", name, n.Line) }
	if root.Kind != yaml.MappingNode {
		return nil, nil, &config.Error{Source: at(root), Err: config.Reason(config.ErrSyntax, "the file must be a mapping of sections (model:, research:, ...)")}
	}

	var errs []error
	seen := map[string]int{} // section or key → line
	known := keys()
	for section, body := range pairs(root) {
		sec := strings.ToLower(section.Value)
		if first, dup := seen[sec]; dup {
			errs = append(errs, repeated(sec, at(section), first))
			continue
		}
		seen[sec] = section.Line
		if !slices.ContainsFunc(known, func(k string) bool { return strings.HasPrefix(k, sec+".") }) {
			errs = append(errs, unknownKey(sec, at(section)))
			continue
		}
		body = deref(body)
		if isNull(body) {
			continue
		}
		if body.Kind != yaml.MappingNode {
			errs = append(errs, &config.Error{Key: sec, Source: at(body), Err: config.Reason(config.ErrSyntax, "must be a mapping of keys")})
			continue
		}
		for k, v := range pairs(body) {
			key := sec + "." + strings.ToLower(k.Value)
			if first, dup := seen[key]; dup {
				errs = append(errs, repeated(key, at(k), first))
				continue
			}
			seen[key] = k.Line
			if !slices.Contains(known, key) {
				errs = append(errs, unknownKey(key, at(k)))
				continue
			}
			v = deref(v)
			if isNull(v) {
				continue
			}
			lines[key] = k.Line
			var val any
			var err error
			switch typeOf(key).Kind() {
			case reflect.Slice:
				val, err = listValue(key, v, at)
			case reflect.Map:
				if key == "mcp.servers" {
					val, err = mcpServerTable(key, v, at, lines)
					break
				}
				val, err = priceTable(key, v, at, lines)
			default:
				if v.Kind != yaml.ScalarNode {
					err = &config.Error{Key: key, Source: at(v), Err: invalid("must be a single value")}
				}
				val = v.Value
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			vals[key] = val
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return vals, lines, nil
}

// listValue reads a list: a sequence of single values, or one value that
// the decoder splits at commas.
func listValue(key string, v *yaml.Node, at func(*yaml.Node) string) (any, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		return v.Value, nil
	case yaml.SequenceNode:
		list := []string{}
		for _, item := range v.Content {
			item = deref(item)
			if item.Kind != yaml.ScalarNode || isNull(item) {
				return nil, &config.Error{Key: key, Source: at(item), Err: invalid("must be a list of single values")}
			}
			list = append(list, item.Value)
		}
		return list, nil
	}
	return nil, &config.Error{Key: key, Source: at(v), Err: invalid("must be a list of single values")}
}

// priceTable reads model.prices: a mapping of "provider:name" to a
// mapping of input and output prices, or one value in the environment's
// form (see parsePrices). It records the line of each price in lines.
func priceTable(key string, v *yaml.Node, at func(*yaml.Node) string, lines map[string]int) (any, error) {
	if v.Kind == yaml.ScalarNode {
		return v.Value, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, &config.Error{Key: key, Source: at(v), Err: invalid("must be a mapping of provider:name to input and output prices")}
	}
	var errs []error
	table := map[string]map[string]string{}
	for model, price := range pairs(v) {
		id := config.NormalizeModel(model.Value)
		entry := key + "[" + id + "]"
		if err := record(lines, entry, model, at); err != nil {
			errs = append(errs, err)
			continue
		}
		price = deref(price)
		if price.Kind != yaml.MappingNode {
			errs = append(errs, &config.Error{Key: entry, Source: at(price), Err: invalid("must be a mapping of input and output prices")})
			continue
		}
		p := map[string]string{}
		for field, val := range pairs(price) {
			name := strings.ToLower(field.Value)
			sub := entry + "." + name
			if name != "input" && name != "output" {
				errs = append(errs, unknown(sub, at(field), closest(sub, []string{entry + ".input", entry + ".output"})))
				continue
			}
			if err := record(lines, sub, field, at); err != nil {
				errs = append(errs, err)
				continue
			}
			val = deref(val)
			if val.Kind != yaml.ScalarNode || isNull(val) {
				errs = append(errs, &config.Error{Key: sub, Source: at(val), Err: invalid("must be a number")})
				continue
			}
			p[name] = val.Value
		}
		table[id] = p
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return table, nil
}

// mcpServerTable reads mcp.servers: a mapping of server names to their
// fields (config.MCPServer's keys), each a single value, a list
// (command) or a mapping of single values (env, search_args). It records
// the line of each server and field in lines.
func mcpServerTable(key string, v *yaml.Node, at func(*yaml.Node) string, lines map[string]int) (any, error) {
	if v.Kind != yaml.MappingNode {
		return nil, &config.Error{Key: key, Source: at(v), Err: invalid("must be a mapping of server names to their command or url and tools")}
	}
	fields := map[string]reflect.Kind{}
	st := reflect.TypeFor[config.MCPServer]()
	for i := range st.NumField() {
		fields[st.Field(i).Tag.Get("mapstructure")] = st.Field(i).Type.Kind()
	}
	var known []string
	var errs []error
	table := map[string]map[string]any{}
	for name, body := range pairs(v) {
		entry := key + "[" + strings.ToLower(name.Value) + "]"
		if err := record(lines, entry, name, at); err != nil {
			errs = append(errs, err)
			continue
		}
		body = deref(body)
		if body.Kind != yaml.MappingNode {
			errs = append(errs, &config.Error{Key: entry, Source: at(body), Err: invalid("must be a mapping of command or url and tools")})
			continue
		}
		srv := map[string]any{}
		for field, val := range pairs(body) {
			f := strings.ToLower(field.Value)
			sub := entry + "." + f
			kind, ok := fields[f]
			if !ok {
				if known == nil {
					for k := range fields {
						known = append(known, k)
					}
					slices.Sort(known)
				}
				subs := make([]string, len(known))
				for i, k := range known {
					subs[i] = entry + "." + k
				}
				errs = append(errs, unknown(sub, at(field), closest(sub, subs)))
				continue
			}
			if err := record(lines, sub, field, at); err != nil {
				errs = append(errs, err)
				continue
			}
			val = deref(val)
			if isNull(val) {
				continue
			}
			switch kind {
			case reflect.Slice:
				list, err := listValue(sub, val, at)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				srv[f] = list
			case reflect.Map:
				if val.Kind != yaml.MappingNode {
					errs = append(errs, &config.Error{Key: sub, Source: at(val), Err: invalid("must be a mapping of names to single values")})
					continue
				}
				m := map[string]string{}
				for k, x := range pairs(val) {
					x = deref(x)
					if x.Kind != yaml.ScalarNode || isNull(x) {
						errs = append(errs, &config.Error{Key: sub + "." + k.Value, Source: at(x), Err: invalid("must be a single value")})
						continue
					}
					m[k.Value] = x.Value
				}
				srv[f] = m
			default:
				if val.Kind != yaml.ScalarNode {
					errs = append(errs, &config.Error{Key: sub, Source: at(val), Err: invalid("must be a single value")})
					continue
				}
				srv[f] = val.Value
			}
		}
		table[strings.ToLower(name.Value)] = srv
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return table, nil
}

// record keeps the line of entry, written at n, or returns the error of
// an entry written twice.
func record(lines map[string]int, entry string, n *yaml.Node, at func(*yaml.Node) string) error {
	if first, dup := lines[entry]; dup {
		return repeated(entry, at(n), first)
	}
	lines[entry] = n.Line
	return nil
}

func repeated(key, source string, first int) error {
	return &config.Error{Key: key, Source: source, Err: config.Reason(config.ErrSyntax, "repeated; first at line %d", first)}
}

// pairs iterates over the keys and values of a mapping node.
func pairs(n *yaml.Node) iter.Seq2[*yaml.Node, *yaml.Node] {
	return func(yield func(k, v *yaml.Node) bool) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i], n.Content[i+1]) {
				return
			}
		}
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// unknownKey reports key, suggesting the known key it most resembles.
func unknownKey(key, source string) error { return unknown(key, source, suggest(key)) }

func unknown(key, source, suggestion string) error {
	return &config.Error{Key: key, Source: source, Err: unknownReason(suggestion)}
}

func unknownReason(suggestion string) error {
	msg := "unknown key"
	if suggestion != "" {
		msg += "; did you mean " + suggestion + "?"
	}
	return config.Reason(config.ErrUnknownKey, "%s", msg)
}

// suggest returns the known key (or section) closest to key: one with the
// same last part (a key put in the wrong section), else one within a few
// typos; "" if none is close.
func suggest(key string) string {
	leaf := key[strings.LastIndex(key, ".")+1:]
	var cands []string
	for _, k := range keys() {
		if k[strings.LastIndex(k, ".")+1:] == leaf {
			return k
		}
		if !strings.Contains(key, ".") {
			k = k[:strings.Index(k, ".")] // compare sections with sections
		}
		cands = append(cands, k)
	}
	return closest(key, cands)
}

// closest returns the candidate within two typos of s, the first of the
// closest; "" if none is.
func closest(s string, cands []string) string {
	best, bestDist := "", 3
	for _, c := range cands {
		if d := Distance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes: what
// the suggestions for a mistyped key or variable go by, and the CLI's for
// a mistyped flag.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
