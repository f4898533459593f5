package provider

import (
	"errors"
	"net/url"
)

// Description says what a Config resolves to, without its secret: for
// `deepresearch doctor` and logs.
type Description struct {
	Provider string `json:"provider"`
	Name     string `json:"name,omitempty"`
	// BaseURL is the address called, with any user:password removed.
	BaseURL string `json:"base_url,omitempty"`
	// Key says where the key comes from: "config", a variable's name,
	// "none" when the provider needs none, or "missing".
	Key string `json:"key"`
	// Err is why New would fail, if it would.
	Err string `json:"error,omitempty"`
}

// Describe resolves cfg as New would and describes it. It never includes
// the key itself.
func Describe(cfg Config, getenv func(string) string) Description {
	ep, err := resolve(cfg, getenv)
	d := Description{Provider: ep.provider, Name: ep.name, BaseURL: redact(ep.baseURL), Key: "none"}
	switch {
	case cfg.APIKey != "":
		d.Key = "config"
	case ep.apiKey != "":
		d.Key = ep.keyVar
	}
	var ke *KeyError
	if errors.As(err, &ke) {
		d.Key = "missing"
	}
	if err != nil {
		d.Err = err.Error()
	}
	return d
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
