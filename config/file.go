package config

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// findFile returns the path and contents of the configuration file to
// read: explicit if it is not "", else ./deepresearch.yaml, else
// deepresearch/config.yaml under the user's configuration directory
// ($XDG_CONFIG_HOME, or ~/.config, on Linux). It returns "" when explicit
// is "" and neither file exists; an explicit file must exist.
func findFile(explicit string) (string, []byte, error) {
	if explicit != "" {
		data, err := os.ReadFile(explicit)
		if err != nil {
			return "", nil, fmt.Errorf("config: %w", err)
		}
		return explicit, data, nil
	}
	candidates := []string{"deepresearch.yaml"}
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "deepresearch", "config.yaml"))
	}
	for _, path := range candidates {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			return path, data, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", nil, fmt.Errorf("config: %w", err)
		}
	}
	return "", nil, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML reads a configuration file named name: a mapping of sections,
// each a mapping of keys to single values. It returns each key's value as
// written (a string: a file's values are parsed like environment variables,
// so 0123 stays "0123" for a string setting) and the line it is on. Keys
// with a null value are left out. Unknown and repeated keys are errors.
func parseYAML(name string, data []byte) (vals map[string]any, lines map[string]int, err error) {
	vals, lines = map[string]any{}, map[string]int{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			name, msg = name+":"+m[1], m[2]
		}
		return nil, nil, &Error{Source: name, Err: reason{ErrSyntax, msg}}
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
		return nil, nil, &Error{Source: at(root), Err: reason{ErrSyntax, "the file must be a mapping of sections (model:, research:, ...)"}}
	}

	var errs []error
	seen := map[string]int{} // section or key → line
	known := keys()
	for section, body := range pairs(root) {
		sec := strings.ToLower(section.Value)
		if first, dup := seen[sec]; dup {
			errs = append(errs, &Error{Key: sec, Source: at(section), Err: reason{ErrSyntax, fmt.Sprintf("repeated; first at line %d", first)}})
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
			errs = append(errs, &Error{Key: sec, Source: at(body), Err: reason{ErrSyntax, "must be a mapping of keys"}})
			continue
		}
		for k, v := range pairs(body) {
			key := sec + "." + strings.ToLower(k.Value)
			if first, dup := seen[key]; dup {
				errs = append(errs, &Error{Key: key, Source: at(k), Err: reason{ErrSyntax, fmt.Sprintf("repeated; first at line %d", first)}})
				continue
			}
			seen[key] = k.Line
			if !slices.Contains(known, key) {
				errs = append(errs, unknownKey(key, at(k)))
				continue
			}
			v = deref(v)
			switch {
			case isNull(v):
			case v.Kind != yaml.ScalarNode:
				errs = append(errs, &Error{Key: key, Source: at(v), Err: invalid("must be a single value")})
			default:
				vals[key], lines[key] = v.Value, k.Line
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return vals, lines, nil
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
func unknownKey(key, source string) error {
	msg := "unknown key"
	if s := suggest(key); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return &Error{Key: key, Source: source, Err: reason{ErrUnknownKey, msg}}
}

// suggest returns the known key (or section) closest to key: one with the
// same last part (a key put in the wrong section), else one within a few
// typos; "" if none is close.
func suggest(key string) string {
	leaf := key[strings.LastIndex(key, ".")+1:]
	best, bestDist := "", 3
	for _, k := range keys() {
		if k[strings.LastIndex(k, ".")+1:] == leaf {
			return k
		}
		cand := k
		if !strings.Contains(key, ".") {
			cand = k[:strings.Index(k, ".")] // compare sections with sections
		}
		if d := distance(key, cand); d < bestDist {
			best, bestDist = cand, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
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
