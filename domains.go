package deepresearch

import (
	"context"
	"errors"
	"net/url"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/domains"
)

// checkDomains checks a request's domain lists as a Request field.
func checkDomains(d *domains.Lists) error {
	var le *domains.ListError
	if err := d.Check(); errors.As(err, &le) {
		return &RequestError{Field: le.Field, Problem: le.Problem}
	}
	return nil
}

// setDomains compiles Config.Domains into the Researcher's policy and
// tier table.
func (r *Researcher) setDomains() error {
	d := r.cfg.Domains
	policy, err := domains.NewPolicy(d.Allow, d.Deny)
	if err != nil {
		return configErrorf("Domains: %v", err)
	}
	r.policy = policy
	if d.NoTiers {
		return nil
	}
	table := domains.Builtin()
	if d.TierTable != nil {
		if table, err = domains.ParseTable(d.TierTable); err != nil {
			return configErrorf("Domains.TierTable: %v", err)
		}
	}
	if r.tiers, err = table.Override(d.Tiers); err != nil {
		return configErrorf("Domains.Tiers: %v", err)
	}
	return nil
}

// withDomains returns ctx carrying the domain policy of a run whose
// request narrows the configured one by rd (nil: not at all), for its
// search backend and page fetcher to apply, with the tier table and the
// Researcher's logger, which the backends built apart from it use.
func (r *Researcher) withDomains(ctx context.Context, rd *domains.Lists) (context.Context, error) {
	ctx = r.log.WithContext(ctx) // the backends' logger (zerolog.Ctx)
	if r.tiers != nil {
		ctx = domains.WithTiers(ctx, r.tiers)
	}
	p := r.policy
	if rd != nil {
		var err error
		if p, err = p.Narrow(rd.Allow, rd.Deny); err != nil {
			return nil, &RequestError{Field: "domains", Problem: err.Error()}
		}
	}
	if p == nil {
		return ctx, nil
	}
	return domains.NewContext(ctx, p), nil
}

// tierOf returns the tier of the web page at rawURL ("" when unrated, or
// not an http or https URL).
func (r *Researcher) tierOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return string(r.tiers.Of(rawURL))
}

// withTiers sets the Tier of each web source from the tier table, in
// place, and returns sources.
func (r *Researcher) withTiers(sources []cite.MergedSource) []cite.MergedSource {
	for i := range sources {
		if sources[i].Tier == "" {
			sources[i].Tier = r.tierOf(sources[i].URL)
		}
	}
	return sources
}

// Domain says whether the Researcher's domain policy lets research use
// the page at rawURL, narrowed by rd (nil: the configured policy alone),
// and the page's tier: what `deepresearch domains URL…` prints, to try a
// policy and a tier table out. It reads nothing.
func (r *Researcher) Domain(rawURL string, rd *domains.Lists) (domains.Verdict, error) {
	p := r.policy
	if rd != nil {
		var err error
		if p, err = p.Narrow(rd.Allow, rd.Deny); err != nil {
			return domains.Verdict{}, &RequestError{Field: "domains", Problem: err.Error()}
		}
	}
	v := domains.Verdict{URL: rawURL, Allowed: true, Tier: r.tierOf(rawURL)}
	if err := p.Check(rawURL); err != nil {
		v.Allowed, v.Reason = false, err.Error()
	}
	return v, nil
}
