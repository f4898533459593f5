package load

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch/config"
)

// decodeHook converts the text of files, environment variables and flags
// to the types of Settings. Its errors say what the value must be; the
// decoding names the key.
var decodeHook = mapstructure.ComposeDecodeHookFunc(
	trimHook,
	mapstructure.StringToTimeDurationHookFunc(),
	sizeHook,
	numberHook,
	mapstructure.StringToSliceHookFunc(","),
	pricesHook,
	mcpServersHook,
)

var (
	durationType = reflect.TypeFor[time.Duration]()
	sizeType     = reflect.TypeFor[int64]()
	pricesType   = reflect.TypeFor[map[string]config.Price]()
	serversType  = reflect.TypeFor[map[string]config.MCPServer]()
)

// mcpServersHook reads mcp.servers from text (an environment variable):
// the file's mapping written in YAML's flow form, or JSON
// ({"docs": {"command": ["mcp-server", "/srv/docs"]}}).
func mcpServersHook(f, t reflect.Type, data any) (any, error) {
	if f.Kind() != reflect.String || t != serversType {
		return data, nil
	}
	text := reflect.ValueOf(data).String()
	if strings.TrimSpace(text) == "" {
		return map[string]config.MCPServer{}, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
		return nil, invalid("must be a mapping of server names to their command or url and tools, such as {docs: {command: [mcp-server, /srv/docs]}}")
	}
	table, err := mcpServerTable("mcp.servers", deref(doc.Content[0]), func(*yaml.Node) string { return "" }, map[string]int{})
	if err != nil {
		return nil, invalid("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return table, nil
}

// trimHook drops the spaces around text that becomes anything but text.
func trimHook(f, t reflect.Type, data any) (any, error) {
	if f.Kind() != reflect.String || t.Kind() == reflect.String {
		return data, nil
	}
	return strings.TrimSpace(reflect.ValueOf(data).String()), nil
}

// numberHook reads whole numbers (decimal only: 010 is ten), numbers and
// booleans (true/false, yes/no, on/off, 1/0).
func numberHook(f, t reflect.Type, data any) (any, error) {
	if f.Kind() != reflect.String {
		return data, nil
	}
	text := reflect.ValueOf(data).String()
	switch t.Kind() {
	case reflect.Int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return nil, invalid("must be a whole number")
		}
		return n, nil
	case reflect.Float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, invalid("must be a number")
		}
		return x, nil
	case reflect.Bool:
		switch strings.ToLower(text) {
		case "true", "yes", "on", "1":
			return true, nil
		case "false", "no", "off", "0":
			return false, nil
		}
		return nil, invalid("must be true or false")
	}
	return data, nil
}

// sizeHook reads sizes in bytes: a whole number, or one with a KiB, MiB
// or GiB suffix ("512KiB", "5 MiB").
func sizeHook(f, t reflect.Type, data any) (any, error) {
	if f.Kind() != reflect.String || t != sizeType {
		return data, nil
	}
	n, ok := parseSize(reflect.ValueOf(data).String())
	if !ok {
		return nil, invalid("%s", sizeMessage)
	}
	return n, nil
}

const sizeMessage = "must be a size in bytes such as 1048576, 512KiB or 5MiB"

func parseSize(text string) (int64, bool) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if num, ok := strings.CutSuffix(text, u.suffix); ok {
			text, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, false
	}
	return n * mult, true
}

// pricesHook reads model.prices from text: see parsePrices.
func pricesHook(f, t reflect.Type, data any) (any, error) {
	if f.Kind() != reflect.String || t != pricesType {
		return data, nil
	}
	table, err := parsePrices(reflect.ValueOf(data).String())
	if err != nil {
		return nil, err
	}
	return table, nil
}

// parsePrices reads model prices written as entries separated by commas,
// each "provider:name=input/output" in dollars per million tokens:
// "openai:gpt-4o=2.5/10,anthropic:claude-sonnet-4=3/15". The provider
// parts are lower-cased; the numbers are left as text for the decoder. ""
// is no prices.
func parsePrices(text string) (map[string]map[string]string, error) {
	table := map[string]map[string]string{}
	for entry := range strings.SplitSeq(text, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		i := strings.LastIndexByte(entry, '=')
		in, out, ok := strings.Cut(entry[i+1:], "/")
		if i <= 0 || !ok {
			return nil, invalid("entry %q: want provider:name=INPUT/OUTPUT in dollars per million tokens, such as openai:gpt-4o=2.5/10", entry)
		}
		id := config.NormalizeModel(entry[:i])
		if _, dup := table[id]; dup {
			return nil, invalid("%s is priced twice", id)
		}
		table[id] = map[string]string{"input": strings.TrimSpace(in), "output": strings.TrimSpace(out)}
	}
	return table, nil
}

// typeMessage says what the value of name must be, from its type.
func typeMessage(name string) string {
	switch t := typeOfName(name); {
	case t == nil:
		return "cannot be decoded"
	case t == durationType:
		return "must be a duration such as 90s, 2m or 1m30s"
	case t == sizeType:
		return sizeMessage
	case t.Kind() == reflect.Int:
		return "must be a whole number"
	case t.Kind() == reflect.Float64:
		return "must be a number"
	case t.Kind() == reflect.Bool:
		return "must be true or false"
	case t.Kind() == reflect.Slice:
		return "must be a list of single values"
	case t.Kind() == reflect.Map:
		return "must be a mapping of provider:name to input and output prices"
	case t.Kind() == reflect.Struct:
		return "must be a mapping of input and output prices"
	}
	return "must be a single value"
}
