package load

import (
	"reflect"
	"strings"
	"sync"

	"github.com/deepresearch/deepresearch/config"
)

// setting is one key of config.Settings and the Go type of its value.
type setting struct {
	key string
	typ reflect.Type
}

// schema lists every setting, in the order of the Settings struct (which
// is the order of defaults.yaml), read from the mapstructure tags.
var schema = sync.OnceValue(func() []setting {
	var ss []setting
	st := reflect.TypeFor[config.Settings]()
	for i := range st.NumField() {
		sec := st.Field(i)
		name := sec.Tag.Get("mapstructure")
		if name == "-" {
			continue
		}
		for j := range sec.Type.NumField() {
			f := sec.Type.Field(j)
			ss = append(ss, setting{key: name + "." + f.Tag.Get("mapstructure"), typ: f.Type})
		}
	}
	return ss
})

// keys lists every setting's key.
var keys = sync.OnceValue(func() []string {
	var ks []string
	for _, s := range schema() {
		ks = append(ks, s.key)
	}
	return ks
})

// typeOf returns the Go type of key's value, or nil for no key.
func typeOf(key string) reflect.Type {
	for _, s := range schema() {
		if s.key == key {
			return s.typ
		}
	}
	return nil
}

// keyOf returns the key that name is or is part of: "model.prices" for
// "model.prices[openai:gpt-4o].input"; "" if name is no key's.
func keyOf(name string) string {
	for _, k := range keys() {
		if name == k || strings.HasPrefix(name, k+"[") || strings.HasPrefix(name, k+".") {
			return k
		}
	}
	return ""
}

// typeOfName returns the Go type of the value name designates: a key, or
// a part of one such as "model.prices[openai:gpt-4o].input"; nil if none.
func typeOfName(name string) reflect.Type {
	key := keyOf(name)
	if key == "" {
		return nil
	}
	t, rest := typeOf(key), name[len(key):]
	for rest != "" && t != nil {
		switch {
		case rest[0] == '[' && (t.Kind() == reflect.Map || t.Kind() == reflect.Slice):
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil
			}
			t, rest = t.Elem(), rest[end+1:]
		case rest[0] == '.' && t.Kind() == reflect.Struct:
			field := rest[1:]
			if end := strings.IndexAny(field, ".["); end >= 0 {
				field = field[:end]
			}
			var next reflect.Type
			for i := range t.NumField() {
				if t.Field(i).Tag.Get("mapstructure") == field {
					next = t.Field(i).Type
				}
			}
			t, rest = next, rest[1+len(field):]
		default:
			return nil
		}
	}
	return t
}

// envName is the environment variable of key.
func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// value returns the value of key in s; nil for no key.
func value(s config.Settings, key string) any {
	sec, name, _ := strings.Cut(key, ".")
	rv := reflect.ValueOf(&s).Elem()
	for i := range rv.NumField() {
		if rv.Type().Field(i).Tag.Get("mapstructure") != sec {
			continue
		}
		sv := rv.Field(i)
		for j := range sv.NumField() {
			if sv.Type().Field(j).Tag.Get("mapstructure") == name {
				return sv.Field(j).Interface()
			}
		}
	}
	return nil
}
