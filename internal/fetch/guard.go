package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// Resolver looks up the addresses of a host name. *net.Resolver implements
// it; tests inject their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// blockedPrefixes are the ranges the guard refuses, with the class named in
// errors. Order matters only for the name: the first match names the class.
var blockedPrefixes = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("169.254.169.254/32"), "cloud metadata"},
	{netip.MustParsePrefix("100.100.100.200/32"), "cloud metadata"}, // Alibaba Cloud
	{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata"},  // AWS over IPv6
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "CGNAT"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"}, // deprecated ::a.b.c.d
	{netip.MustParsePrefix("fc00::/7"), "private"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Prefixes that embed an IPv4 address, which is checked in turn.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// blockedReason returns why addr must not be dialled, or "" when it may be.
// IPv4-mapped, NAT64 and 6to4 addresses are judged by the IPv4 address they
// carry.
func blockedReason(addr netip.Addr) string {
	if !addr.IsValid() {
		return "invalid"
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is6() {
		b := addr.As16()
		switch {
		case nat64Prefix.Contains(addr):
			return blockedReason(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(addr):
			return blockedReason(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	for _, p := range blockedPrefixes {
		if p.prefix.Contains(addr) {
			return p.reason
		}
	}
	return ""
}

// allowlist is the set of HOST:PORT entries that the guard lets through,
// normalised: host lowercased without a trailing dot, IP literals in their
// canonical form.
type allowlist map[string]bool

// parseAllow checks and normalises Config.Allow.
func parseAllow(entries []string) (allowlist, error) {
	al := allowlist{}
	for _, e := range entries {
		host, port, err := net.SplitHostPort(strings.TrimSpace(e))
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("fetch: allow entry %q: want HOST:PORT ([IPv6]:PORT)", e)
		}
		al[allowKey(host, port)] = true
	}
	return al, nil
}

func allowKey(host, port string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		return net.JoinHostPort(a.Unmap().String(), port)
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.ToLower(host), "."), port)
}

// allowedKey marks a dial whose requested HOST:PORT is on the allowlist.
type allowedKey struct{}

// dialer dials only addresses the guard accepts. Names are resolved here,
// with the injected resolver, and the addresses checked before any is
// dialled; the dialled address is checked again in control, so nothing
// between the check and the connect can change it.
type dialer struct {
	allow    allowlist
	resolver Resolver
	net      net.Dialer
}

func newDialer(allow allowlist, r Resolver) *dialer {
	d := &dialer{allow: allow, resolver: r}
	d.net.ControlContext = d.control
	return d
}

// DialContext is the http.Transport hook.
func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if d.allow[allowKey(host, port)] {
		ctx = context.WithValue(ctx, allowedKey{}, true)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, WithoutResolver(err)
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	var firstErr error
	for _, a := range addrs {
		target := net.JoinHostPort(a.Unmap().String(), port)
		if err := d.check(ctx, host, target); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		c, err := d.net.DialContext(ctx, network, target)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if firstErr == nil || isBlocked(firstErr) {
			firstErr = err
		}
	}
	return nil, firstErr
}

// control re-checks the address the socket is about to connect to.
func (d *dialer) control(ctx context.Context, _, address string, _ syscall.RawConn) error {
	return d.check(ctx, "", address)
}

// check refuses target (IP:PORT) unless the dial was allowlisted by name,
// target itself is allowlisted, or its address is public.
func (d *dialer) check(ctx context.Context, host, target string) error {
	if ctx.Value(allowedKey{}) != nil || d.allow[target] {
		return nil
	}
	ap, err := netip.ParseAddrPort(target)
	if err != nil {
		return &AddrError{Host: host, Addr: target, Reason: "unparsable"}
	}
	if why := blockedReason(ap.Addr()); why != "" {
		return &AddrError{Host: host, Addr: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String(), Reason: why}
	}
	return nil
}

// WithoutResolver returns err without the address of the DNS server it
// names, when it is a *net.DNSError that names one ("lookup x on
// 10.0.0.53:53: no such host" becomes "lookup x: no such host"): this
// machine's resolver is no business of the model that reads the error.
func WithoutResolver(err error) error {
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || dnsErr.Server == "" {
		return err
	}
	e := *dnsErr
	e.Server = ""
	return &e
}

func isBlocked(err error) bool {
	_, ok := err.(*AddrError)
	return ok
}

// InternalHost reports whether host (a URL's host name, without its port)
// names a machine the guard refuses whatever the allowlist: an IP literal
// in a refused range (loopback, private, link-local, cloud metadata…) or a
// name that only a local network resolves ("localhost", "*.localhost",
// "*.local", "*.internal", "*.home.arpa", a name without a dot). It does no
// lookup: a public name may still resolve to an internal address, which
// the dialer refuses when the page is fetched.
func InternalHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		return blockedReason(addr) != ""
	}
	if !strings.Contains(host, ".") {
		return true
	}
	for _, suffix := range []string{".localhost", ".local", ".internal", ".home.arpa"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}
