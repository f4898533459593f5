package canon

import "testing"

func TestRepaired(t *testing.T) {
	const want = "https://a.example/docs/x"
	for _, in := range []string{
		"https:/a.example/docs/x",
		"https:a.example/docs/x",
		"https:///a.example/docs/x",
		`https:\\a.example\docs\x`,
		"HTTP:/www.a.example/docs/x?utm_source=feed",
		"<https:/a.example/docs/x>",
		`"https:/a.example/docs/x"`,
		"https://a.exa\nmple/docs/x",
		"https://a.example/do\tcs/x",
		"\x00https:/a.example/docs/x\x1f",
	} {
		if got := Repaired(in); got != want {
			t.Errorf("Repaired(%q) = %q, want %q", in, got, want)
		}
		if got := Lenient(in); got != want {
			t.Errorf("Lenient(%q) = %q, want %q", in, got, want)
		}
	}
	// Well-formed URLs are Key's: Repaired leaves them, Lenient is Key.
	for _, in := range []string{"https://a.example/docs/x", "a.example/docs/x", `https://a.example/x?q=a\b`} {
		if got := Repaired(in); got != "" {
			t.Errorf("Repaired(%q) = %q, want \"\" (Canonical reads it)", in, got)
		}
		if Lenient(in) != Key(in) {
			t.Errorf("Lenient(%q) = %q, Key %q", in, Lenient(in), Key(in))
		}
	}
	// Still malformed after the repairs: no host, a space in the host,
	// another scheme.
	for _, in := range []string{"https:/", "https:/a .example/x", "ftp:/a.example/x", "mailto:\nx", "htps:/a.example/x", ""} {
		if got := Repaired(in); got != "" {
			t.Errorf("Repaired(%q) = %q, want \"\"", in, got)
		}
	}
}

// FuzzRepaired: a repair is a canonical form (idempotent under Key) and
// never touches a URL Canonical reads.
func FuzzRepaired(f *testing.F) {
	for _, s := range []string{"https:/a.example/x", `http:\\b.example\y?z=\`, "<https:a.example>", "https://a.example/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := Repaired(in)
		if got == "" {
			return
		}
		if Key(in) != "" {
			t.Fatalf("Repaired(%q) = %q for a URL Canonical reads", in, got)
		}
		if Key(got) != got {
			t.Fatalf("Repaired(%q) = %q, not canonical (Key gives %q)", in, got, Key(got))
		}
	})
}
