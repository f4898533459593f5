package canon

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// canonCases are URLs Canonical accepts, with the result it must give.
var canonCases = []struct {
	name, in, want string
}{
	// Whitespace, schemes, scheme-less input.
	{"plain", "https://example.com/a", "https://example.com/a"},
	{"trim spaces", "  https://example.com/a \t\n", "https://example.com/a"},
	{"trim unicode space", "\u00a0https://example.com/a\u3000", "https://example.com/a"},
	{"http becomes https", "http://example.com/a", "https://example.com/a"},
	{"uppercase scheme", "HTTP://example.com/a", "https://example.com/a"},
	{"mixed-case https", "HtTpS://example.com/a", "https://example.com/a"},
	{"scheme-less host", "example.com/a", "https://example.com/a"},
	{"scheme-less www", "www.example.com/a", "https://example.com/a"},
	{"scheme-less arxiv", "arxiv.org/abs/2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"scheme-less bare host", "example.com", "https://example.com/"},
	{"scheme-less with port", "example.com:8080/a", "https://example.com:8080/a"},
	{"scheme-less default port", "example.com:443/a", "https://example.com/a"},
	{"scheme-less localhost", "localhost:8080/x", "https://localhost:8080/x"},
	{"scheme-less ipv6", "[::1]:8080/x", "https://[::1]:8080/x"},
	{"scheme-less query and fragment", "example.com?b=2&a=1#top", "https://example.com/?a=1&b=2"},
	{"protocol-relative", "//example.com/a", "https://example.com/a"},
	{"protocol-relative userinfo", "//u@example.com/a", "https://u@example.com/a"},

	// Host.
	{"lowercase host", "https://EXAMPLE.Com/Path", "https://example.com/Path"},
	{"trailing dot", "https://example.com./a", "https://example.com/a"},
	{"trailing dots", "https://example.com../a", "https://example.com/a"},
	{"strip www", "https://www.example.com/a", "https://example.com/a"},
	{"strip uppercase www", "https://WWW.Example.com/a", "https://example.com/a"},
	{"strip repeated www", "https://www.www.example.com/a", "https://example.com/a"},
	{"keep www when it is the domain", "https://www.com/a", "https://www.com/a"},
	{"keep www in the middle", "https://docs.www.example.com/a", "https://docs.www.example.com/a"},
	{"keep www2", "https://www2.example.com/a", "https://www2.example.com/a"},
	{"keep m. off youtube", "https://m.example.com/a", "https://m.example.com/a"},
	{"keep other subdomains", "https://docs.python.org/3/", "https://docs.python.org/3"},
	{"percent-escaped host", "https://ex%41mple.com/a", "https://example.com/a"},
	{"underscore in host", "https://my_host.example.com/", "https://my_host.example.com/"},
	{"ipv4", "http://192.168.0.1/a", "https://192.168.0.1/a"},
	{"unicode host lowercased", "https://BÜCHER.example/Straße", "https://xn--bcher-kva.example/Stra%C3%9Fe"},
	{"unicode host in punycode", "https://bücher.example/", "https://xn--bcher-kva.example/"},
	{"punycode host meets its unicode form", "https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"},
	{"unicode host escaped", "https://b%C3%BCcher.example/", "https://xn--bcher-kva.example/"},

	// Ports.
	{"drop :80", "http://example.com:80/a", "https://example.com/a"},
	{"drop :443", "https://example.com:443/a", "https://example.com/a"},
	{"drop :443 on http", "http://example.com:443/a", "https://example.com/a"},
	{"drop :80 on https", "https://example.com:80/a", "https://example.com/a"},
	{"keep other port", "https://example.com:8443/a", "https://example.com:8443/a"},
	{"port leading zeros", "https://example.com:08080/a", "https://example.com:8080/a"},
	{"default port leading zeros", "https://example.com:0443/a", "https://example.com/a"},
	{"empty port", "https://example.com:/a", "https://example.com/a"},
	{"port zero", "https://example.com:0/a", "https://example.com:0/a"},
	{"port max", "https://example.com:65535/a", "https://example.com:65535/a"},

	// IPv6.
	{"ipv6", "http://[::1]/a", "https://[::1]/a"},
	{"ipv6 default port", "http://[::1]:80/a", "https://[::1]/a"},
	{"ipv6 default https port", "https://[2001:db8::1]:443/", "https://[2001:db8::1]/"},
	{"ipv6 other port", "http://[::1]:8080/a", "https://[::1]:8080/a"},
	{"ipv6 uppercase and zeros", "http://[2001:0DB8:0000:0000:0000:0000:0000:0001]/", "https://[2001:db8::1]/"},
	{"ipv6 zone", "http://[fe80::1%25en0]/", "https://[fe80::1%25en0]/"},
	{"ipv4-mapped ipv6", "http://[::FFFF:192.0.2.1]/", "https://[::ffff:192.0.2.1]/"},

	// Userinfo.
	{"drop empty userinfo", "https://@example.com/a", "https://example.com/a"},
	{"drop colon userinfo", "https://:@example.com/a", "https://example.com/a"},
	{"keep userinfo", "https://user:pw@example.com/a", "https://user:pw@example.com/a"},
	{"userinfo with @", "https://a@b@example.com/", "https://a%40b@example.com/"},
	{"userinfo percent", "https://us%65r@example.com/", "https://user@example.com/"},

	// Path.
	{"root equals empty path", "https://example.com", "https://example.com/"},
	{"root slash", "https://example.com/", "https://example.com/"},
	{"strip trailing slash", "https://example.com/a/", "https://example.com/a"},
	{"strip trailing slashes", "https://example.com/a///", "https://example.com/a"},
	{"collapse slashes", "https://example.com//a///b", "https://example.com/a/b"},
	{"only slashes", "https://example.com////", "https://example.com/"},
	{"dot segments", "https://example.com/a/./b/../c", "https://example.com/a/c"},
	{"dot dot above root", "https://example.com/../../a", "https://example.com/a"},
	{"trailing dot segment", "https://example.com/a/b/..", "https://example.com/a"},
	{"escaped dot segments", "https://example.com/a/%2E%2e/b", "https://example.com/b"},
	{"dots inside names kept", "https://example.com/a..b/.c/d.", "https://example.com/a..b/.c/d."},
	{"keep path case", "https://example.com/A/B", "https://example.com/A/B"},
	{"decode unreserved", "https://example.com/%7Euser/%41%62%2d%5F%2E", "https://example.com/~user/Ab-_."},
	{"uppercase other escapes", "https://example.com/a%2fb%3a", "https://example.com/a%2Fb%3A"},
	{"encoded slash is not a separator", "https://example.com/a%2F%2Fb", "https://example.com/a%2F%2Fb"},
	{"escape space", "https://example.com/a b", "https://example.com/a%20b"},
	{"escape stray percent", "https://example.com/100%/x%zz", "https://example.com/100%25/x%25zz"},
	{"keep sub-delims", "https://example.com/a;b=c,d!$&'()*+:@", "https://example.com/a;b=c,d!$&'()*+:@"},
	{"unicode path", "https://ja.wikipedia.org/wiki/東京", "https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC"},
	{"unicode path escaped lowercase", "https://ja.wikipedia.org/wiki/%e6%9d%b1%e4%ba%ac", "https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC"},
	{"escape backslash", `https://example.com/a\b`, "https://example.com/a%5Cb"},

	// Query.
	{"sort query", "https://example.com/s?b=2&a=1&c=3", "https://example.com/s?a=1&b=2&c=3"},
	{"repeated keys sorted by value", "https://example.com/s?a=2&a=1&a=10", "https://example.com/s?a=1&a=10&a=2"},
	{"repeated identical pairs kept", "https://example.com/s?a=1&a=1", "https://example.com/s?a=1&a=1"},
	{"drop utm", "https://example.com/a?utm_source=x&utm_medium=y&UTM_Campaign=z&id=7", "https://example.com/a?id=7"},
	{"drop click ids", "https://example.com/a?gclid=1&dclid=2&gbraid=3&wbraid=4&fbclid=5&msclkid=6&yclid=7&id=1", "https://example.com/a?id=1"},
	{"drop mail and social", "https://example.com/a?mc_cid=1&mc_eid=2&igshid=3&_hsenc=4&_hsmi=5&x=1", "https://example.com/a?x=1"},
	{"drop ref and source", "https://example.com/a?ref=hn&ref_src=twsrc&ref_url=x&source=rss&spm=a.b&k=v", "https://example.com/a?k=v"},
	{"tracking names case-insensitive", "https://example.com/a?FBCLID=1&Ref=2&k=v", "https://example.com/a?k=v"},
	{"all params tracking", "https://example.com/a?utm_source=x&fbclid=y", "https://example.com/a"},
	{"keep near-tracking names", "https://example.com/a?utm=1&refs=2&sources=3&referrer=4", "https://example.com/a?referrer=4&refs=2&sources=3&utm=1"},
	{"keep si off youtube and spotify", "https://example.com/a?si=1", "https://example.com/a?si=1"},
	{"keep ref on github api", "https://api.github.com/repos/o/r/contents/a.md?ref=v2&utm_source=x", "https://api.github.com/repos/o/r/contents/a.md?ref=v2"},
	{"keep ref on gitlab", "https://gitlab.com/api/v4/projects/1/repository/files/a/raw?ref=main", "https://gitlab.com/api/v4/projects/1/repository/files/a/raw?ref=main"},
	{"drop ref on github web", "https://github.com/foo/bar?ref=producthunt", "https://github.com/foo/bar"},
	{"drop si on spotify", "https://open.spotify.com/track/abc?si=xyz", "https://open.spotify.com/track/abc"},
	{"drop si on youtube channel", "https://www.youtube.com/@chan?si=xyz", "https://youtube.com/@chan"},
	{"empty query", "https://example.com/a?", "https://example.com/a"},
	{"empty pairs", "https://example.com/a?&&b=1&&", "https://example.com/a?b=1"},
	{"empty key and value", "https://example.com/a?=&b=1", "https://example.com/a?b=1"},
	{"empty value with =", "https://example.com/a?flag=", "https://example.com/a?flag"},
	{"empty value bare", "https://example.com/a?flag", "https://example.com/a?flag"},
	{"empty key", "https://example.com/a?=v", "https://example.com/a?=v"},
	{"plus is space", "https://example.com/s?q=a+b", "https://example.com/s?q=a%20b"},
	{"encoded space", "https://example.com/s?q=a%20b", "https://example.com/s?q=a%20b"},
	{"encoded plus", "https://example.com/s?q=a%2bb", "https://example.com/s?q=a%2Bb"},
	{"decode query escapes", "https://example.com/s?u=https%3A%2F%2Fx.org%2Fp&t=%7e", "https://example.com/s?t=~&u=https://x.org/p"},
	{"escape in query", "https://example.com/s?q=a b&r=é", "https://example.com/s?q=a%20b&r=%C3%A9"},
	{"equals in value", "https://example.com/s?a=b=c", "https://example.com/s?a=b%3Dc"},
	{"question mark in query", "https://example.com/s?a=?b", "https://example.com/s?a=?b"},
	{"stray percent in query", "https://example.com/s?a=100%", "https://example.com/s?a=100%25"},
	{"semicolon is not a separator", "https://example.com/s?a=1;b=2", "https://example.com/s?a=1;b%3D2"},

	// Fragment.
	{"strip fragment", "https://example.com/a#section-1", "https://example.com/a"},
	{"strip empty fragment", "https://example.com/a#", "https://example.com/a"},
	{"keep hash route", "https://example.com/app#/users/42", "https://example.com/app#/users/42"},
	{"keep hashbang route", "https://example.com/#!/users/42", "https://example.com/#!/users/42"},
	{"hash route after query", "https://example.com/app?b=1&a=2#/x?y=1", "https://example.com/app?a=2&b=1#/x?y=1"},
	{"hash route escapes", "https://example.com/#/a%7e%2f b", "https://example.com/#/a~%2F%20b"},
	// Sections of documentation pages keep their anchors (issue 17).
	{"godoc anchor", "https://pkg.go.dev/os#Getwd", "https://pkg.go.dev/os#Getwd"},
	{"godoc anchor case kept", "http://www.pkg.go.dev/os/#File.ReadDir", "https://pkg.go.dev/os#File.ReadDir"},
	{"go doc path", "https://go.dev/doc/effective_go#goroutines", "https://go.dev/doc/effective_go#goroutines"},
	{"go spec", "https://go.dev/ref/spec#Assignment_statements", "https://go.dev/ref/spec#Assignment_statements"},
	{"sphinx anchor", "https://docs.python.org/3/library/os.html#os.getcwd", "https://docs.python.org/3/library/os.html#os.getcwd"},
	{"mdn anchor", "https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API#concepts_and_usage", "https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API#concepts_and_usage"},
	{"javadoc anchor", "https://docs.oracle.com/javase/8/docs/api/java/lang/String.html#length--", "https://docs.oracle.com/javase/8/docs/api/java/lang/String.html#length--"},
	{"javadoc signature", "https://example.org/jdk/String.html#indexOf(java.lang.String,int)", "https://example.org/jdk/String.html#indexOf(java.lang.String,int)"},
	{"rustdoc anchor", "https://doc.rust-lang.org/std/vec/struct.Vec.html#method.push", "https://doc.rust-lang.org/std/vec/struct.Vec.html#method.push"},
	{"readthedocs anchor", "https://requests.readthedocs.io/en/latest/user/quickstart/#make-a-request", "https://requests.readthedocs.io/en/latest/user/quickstart#make-a-request"},
	{"hyphenated doc host", "https://www.sphinx-doc.org/en/master/usage/quickstart.html#running-the-build", "https://sphinx-doc.org/en/master/usage/quickstart.html#running-the-build"},
	{"api anchor on an html page", "https://example.com/lib/os.html#os.getcwd", "https://example.com/lib/os.html#os.getcwd"},
	{"doc anchor escapes", "https://docs.example.com/a#x%7ey%20z", "https://docs.example.com/a#x~y%20z"},
	{"doc landmark dropped", "https://pkg.go.dev/os#top", "https://pkg.go.dev/os"},
	{"doc landmark any case", "https://docs.python.org/3/#Main-Content", "https://docs.python.org/3"},
	{"doc text fragment dropped", "https://docs.python.org/3/library/os.html#:~:text=getcwd", "https://docs.python.org/3/library/os.html"},
	{"doc anchor before a text fragment", "https://docs.python.org/3/library/os.html#os.getcwd:~:text=x", "https://docs.python.org/3/library/os.html#os.getcwd"},
	{"doc escaped text fragment", "https://docs.python.org/3/x.html#a:%7E:text=x", "https://docs.python.org/3/x.html#a"},
	{"doc tracking fragment dropped", "https://docs.example.com/a#utm_source=feed&utm_medium=rss", "https://docs.example.com/a"},
	{"doc state fragment dropped", "https://developer.example.com/video#t=30", "https://developer.example.com/video"},
	{"blog section dropped", "https://blog.example.com/2024/why-go#comments", "https://blog.example.com/2024/why-go"},
	{"html page plain anchor dropped", "https://example.com/post.html#section-2", "https://example.com/post.html"},
	{"wikipedia section dropped", "https://en.wikipedia.org/wiki/Go_(programming_language)#History", "https://en.wikipedia.org/wiki/Go_(programming_language)"},
	{"github line dropped", "https://github.com/golang/go/blob/master/src/os/file.go#L42", "https://github.com/golang/go/blob/master/src/os/file.go"},

	// YouTube.
	{"youtube watch", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube watch extras", "https://www.youtube.com/watch?feature=share&v=dQw4w9WgXcQ&list=PL123&index=2&t=42s&pp=ygU&ab_channel=Rick&si=abc", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube watch http", "http://youtube.com/watch?v=dQw4w9WgXcQ#t=10", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube mobile", "https://m.youtube.com/watch?v=dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtu.be", "https://youtu.be/dQw4w9WgXcQ?si=abc&t=5", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtu.be scheme-less", "youtu.be/dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube embed", "https://www.youtube.com/embed/dQw4w9WgXcQ?start=3", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube shorts", "https://youtube.com/shorts/dQw4w9WgXcQ?feature=share", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube v", "https://www.youtube.com/v/dQw4w9WgXcQ&hl=en_US", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube live", "https://www.youtube.com/live/dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube nocookie", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube first v wins", "https://youtube.com/watch?v=aaaaaaaaaaa&v=bbbbbbbbbbb", "https://youtube.com/watch?v=aaaaaaaaaaa"},
	{"youtube id case kept", "https://youtube.com/watch?v=AbCdEfGhIjK", "https://youtube.com/watch?v=AbCdEfGhIjK"},
	{"youtube playlist kept", "https://www.youtube.com/playlist?list=PL123&si=x", "https://youtube.com/playlist?list=PL123"},
	{"youtube embed playlist kept", "https://www.youtube.com/embed/videoseries?list=PL123", "https://youtube.com/embed/videoseries?list=PL123"},
	{"youtube channel kept", "https://www.youtube.com/@SomeChannel/videos", "https://youtube.com/@SomeChannel/videos"},
	{"youtube watch without v", "https://www.youtube.com/watch?list=PL123", "https://youtube.com/watch?list=PL123"},
	{"youtube music not rewritten", "https://music.youtube.com/watch?v=dQw4w9WgXcQ&list=RD", "https://music.youtube.com/watch?list=RD&v=dQw4w9WgXcQ"},
	{"youtube with port not rewritten", "https://youtube.com:8443/embed/dQw4w9WgXcQ", "https://youtube.com:8443/embed/dQw4w9WgXcQ"},
	{"youtube bad id not rewritten", "https://youtu.be/a/b", "https://youtu.be/a/b"},

	// arXiv.
	{"arxiv abs", "https://arxiv.org/abs/2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"arxiv abs version", "https://arxiv.org/abs/2401.12345v2", "https://arxiv.org/abs/2401.12345"},
	{"arxiv pdf version", "https://arxiv.org/pdf/2401.12345v2", "https://arxiv.org/abs/2401.12345"},
	{"arxiv pdf suffix", "https://arxiv.org/pdf/2401.12345.pdf", "https://arxiv.org/abs/2401.12345"},
	{"arxiv pdf version suffix", "http://arxiv.org/pdf/2401.12345v3.pdf", "https://arxiv.org/abs/2401.12345"},
	{"arxiv html", "https://arxiv.org/html/2401.12345v1", "https://arxiv.org/abs/2401.12345"},
	{"arxiv export", "https://export.arxiv.org/abs/2401.12345v2", "https://arxiv.org/abs/2401.12345"},
	{"arxiv www", "https://www.arxiv.org/abs/2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"arxiv four-digit number", "https://arxiv.org/abs/0704.0001v1", "https://arxiv.org/abs/0704.0001"},
	{"arxiv old style", "https://arxiv.org/abs/hep-th/9901001v3", "https://arxiv.org/abs/hep-th/9901001"},
	{"arxiv old style subject", "https://arxiv.org/pdf/math.GT/0309136", "https://arxiv.org/abs/math/0309136"},
	{"arxiv old style subject abs", "https://arxiv.org/abs/math.GT/0309136v2", "https://arxiv.org/abs/math/0309136"},
	{"arxiv old style no subject", "https://arxiv.org/abs/math/0309136", "https://arxiv.org/abs/math/0309136"},
	{"arxiv pdf suffix upper case", "https://arxiv.org/pdf/2401.12345v2.PDF", "https://arxiv.org/abs/2401.12345"},
	{"github clone URL", "https://github.com/Foo/Bar.git", "https://github.com/foo/bar"},
	{"github clone URL slash", "https://github.com/foo/bar.git/", "https://github.com/foo/bar"},
	{"github .git deeper kept", "https://github.com/foo/bar/blob/main/x.git", "https://github.com/foo/bar/blob/main/x.git"},
	{"wikipedia mobile", "https://en.m.wikipedia.org/wiki/Go_(programming_language)", "https://en.wikipedia.org/wiki/Go_(programming_language)"},
	{"wiktionary mobile", "https://de.m.wiktionary.org/wiki/Haus", "https://de.wiktionary.org/wiki/Haus"},
	{"mobile host of another site kept", "https://en.m.example.org/x", "https://en.m.example.org/x"},
	{"arxiv query and fragment dropped", "https://arxiv.org/abs/2401.12345?context=cs#x", "https://arxiv.org/abs/2401.12345"},
	{"arxiv trailing slash", "https://arxiv.org/abs/2401.12345/", "https://arxiv.org/abs/2401.12345"},
	{"arxiv scheme", "arXiv:2401.12345v2", "https://arxiv.org/abs/2401.12345"},
	{"arxiv listing kept", "https://arxiv.org/list/cs.CL/recent", "https://arxiv.org/list/cs.CL/recent"},
	{"arxiv bad id kept", "https://arxiv.org/abs/foo", "https://arxiv.org/abs/foo"},

	// GitHub.
	{"githubissues", "https://githubissues.com/Foo/Bar/42", "https://github.com/foo/bar/issues/42"},
	{"githubissues scheme-less", "githubissues.com/foo/bar/42", "https://github.com/foo/bar/issues/42"},
	{"githubissues other path kept", "https://githubissues.com/foo/bar", "https://githubissues.com/foo/bar"},
	{"github lowercase owner and repo", "https://github.com/Foo/Bar/blob/Main/README.md", "https://github.com/foo/bar/blob/Main/README.md"},
	{"github www", "https://www.github.com/Foo/Bar/issues/42#issuecomment-1", "https://github.com/foo/bar/issues/42"},
	{"github user", "https://github.com/SomeUser", "https://github.com/someuser"},
	{"github escape hex kept uppercase", "https://github.com/A%2FB/c", "https://github.com/a%2Fb/c"},
	{"github query kept", "https://github.com/foo/bar/issues?q=is%3Aopen+label%3Abug", "https://github.com/foo/bar/issues?q=is:open%20label:bug"},
	{"gist not lowercased", "https://gist.github.com/Foo/abc", "https://gist.github.com/Foo/abc"},

	// DOI.
	{"doi.org", "https://doi.org/10.1000/XYZ", "https://doi.org/10.1000/xyz"},
	{"dx.doi.org", "http://dx.doi.org/10.1000/xyz", "https://doi.org/10.1000/xyz"},
	{"doi scheme", "doi:10.1000/XYZ", "https://doi.org/10.1000/xyz"},
	{"doi scheme uppercase", "DOI:10.1000/xyz", "https://doi.org/10.1000/xyz"},
	{"doi escaped slash", "https://doi.org/10.1000%2FXYZ", "https://doi.org/10.1000/xyz"},
	{"doi escaped lowercase hex", "https://doi.org/10.1002/%28sici%291097-4636", "https://doi.org/10.1002/(sici)1097-4636"},
	{"doi sici", "doi:10.1002/(SICI)1097-4636(199910)47:1<1::AID-JBM1>3.0.CO;2-T", "https://doi.org/10.1002/(sici)1097-4636(199910)47:1%3C1::aid-jbm1%3E3.0.co;2-t"},
	{"doi resolver query dropped", "https://doi.org/10.1000/xyz?locatt=mode:legacy", "https://doi.org/10.1000/xyz"},
	{"doi scheme takes all", "doi:10.1000/a?b#c", "https://doi.org/10.1000/a%3Fb%23c"},
	{"doi sub-prefix", "https://doi.org/10.1000.10/xyz", "https://doi.org/10.1000.10/xyz"},
	{"doi.org root kept", "https://doi.org/", "https://doi.org/"},
	{"doi.org non-doi kept", "https://doi.org/help/Foo", "https://doi.org/help/Foo"},

	// Other schemes.
	{"file", "file:///home/u/docs//a/./b/../c.txt", "file:///home/u/docs/a/c.txt"},
	{"file uppercase scheme", "FILE:///A/B", "file:///A/B"},
	{"file host untouched", "file://WWW.Server/share/x", "file://WWW.Server/share/x"},
	{"file no authority", "file:/etc/hosts", "file:/etc/hosts"},
	{"file space", "file:///My Docs/a.pdf", "file:///My%20Docs/a.pdf"},
	{"file keeps fragment", "file:///a.txt#L10", "file:///a.txt#L10"},
	{"mailto", "mailto:Someone@Example.com", "mailto:Someone@Example.com"},
	{"mailto query kept", "mailto:a@b.com?subject=Hi%20there&body=x", "mailto:a@b.com?subject=Hi%20there&body=x"},
	{"urn opaque", "urn:isbn:0451450523", "urn:isbn:0451450523"},
	{"opaque dots kept", "urn:a/../b", "urn:a/../b"},
	{"corpus scheme", "corpus://Doc-42/chunk/7#p3", "corpus://Doc-42/chunk/7#p3"},
	{"corpus scheme empty path", "corpus://doc-42", "corpus://doc-42"},
	{"corpus scheme trailing slash", "corpus://doc-42/a/", "corpus://doc-42/a"},
	{"corpus scheme empty query", "corpus://doc-42/a?#", "corpus://doc-42/a"},
	{"ftp keeps port and www", "ftp://www.example.com:21/pub", "ftp://www.example.com:21/pub"},
}

// canonBadCases are URLs Canonical must refuse.
var canonBadCases = []struct {
	name, in string
}{
	{"empty", ""},
	{"whitespace only", " \t\n "},
	{"scheme only", "http://"},
	{"https scheme only", "https://"},
	{"no scheme name", "://x"},
	{"colon first", ":foo"},
	{"space in host", "http://exa mple.com"},
	{"unicode space in host", "http://exa\u00a0mple.com/"},
	{"unterminated ipv6", "http://[::1"},
	{"bad ipv6", "http://[::g]/"},
	{"ipv4 in brackets", "http://[192.168.0.1]/"},
	{"junk after ipv6", "http://[::1]x/"},
	{"ipv6 empty zone", "http://[fe80::1%25]/"},
	{"ipv6 raw zone", "http://[fe80::1%en0]/"},
	{"port too big", "http://example.com:99999"},
	{"port overflow", "http://example.com:999999999999999999999"},
	{"port not a number", "http://example.com:http/"},
	{"negative port", "http://example.com:-1/"},
	{"two ports", "http://example.com:80:80/"},
	{"nul", "http://example.com/\x00"},
	{"nul in host", "http://exa\x00mple.com/"},
	{"tab inside", "http://example.com/a\tb"},
	{"newline inside", "http://example.com/a\nb"},
	{"del", "http://example.com/\x7f"},
	{"c1 control", "http://example.com/a\u0085b"},
	{"invalid utf-8", "http://example.com/\xff"},
	{"missing host with path", "http:///a/b"},
	{"missing host no slashes", "http:example.com"},
	{"single slash", "https:/example.com"},
	{"port only", "http://:80/"},
	{"userinfo only", "http://user@/"},
	{"dots only host", "http://.../"},
	{"empty label", "http://a..b.com/"},
	{"leading dot", "http://.example.com/"},
	{"underscore-free bad char", "http://exa!mple.com/"},
	{"host with slash escape", "http://exa%2Fmple.com/"},
	{"host bad escape", "http://exa%zzmple.com/"},
	{"host invalid utf-8 escape", "http://exa%FFmple.com/"},
	{"host zero-width space", "http://exa\u200bmple.com/"},
	{"no scheme no host", "foo/bar"},
	{"no scheme word", "hello"},
	{"no scheme email", "someone@example.com"},
	{"relative path", "/a/b"},
	{"bad scheme", "ht tp://example.com/"},
	{"bad scheme char", "h*p://example.com/"},
	{"digit scheme", "1http://example.com/"},
	{"doi scheme not a doi", "doi:foo"},
	{"doi scheme empty", "doi:"},
	{"doi prefix letters", "doi:10.abc/x"},
	{"arxiv scheme not an id", "arxiv:foo"},
	{"space in custom authority", "corpus://doc 1/x"},
}

func TestCanonical(t *testing.T) {
	for _, tc := range canonCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.in)
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("Canonical(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			canonCheckOutput(t, tc.in, got)
			if k := Key(tc.in); k != got {
				t.Errorf("Key(%q) = %q, Canonical gave %q", tc.in, k, got)
			}
		})
	}
}

// canonCheckOutput checks what holds for every canonical result: it is its
// own canonical form, valid UTF-8 without spaces or controls, and an http(s)
// result is an https URL that net/url accepts.
func canonCheckOutput(t *testing.T, in, got string) {
	t.Helper()
	again, err := Canonical(got)
	if err != nil {
		t.Fatalf("not idempotent: Canonical(%q) = %q, then error %v", in, got, err)
	}
	if again != got {
		t.Fatalf("not idempotent: Canonical(%q) = %q, then %q", in, got, again)
	}
	if !utf8.ValidString(got) || strings.ContainsAny(got, " \t\r\n\x00") {
		t.Errorf("Canonical(%q) = %q: invalid bytes in result", in, got)
	}
	if strings.HasPrefix(got, "https://") {
		u, err := url.Parse(got)
		if err != nil {
			t.Errorf("Canonical(%q) = %q: net/url refuses it: %v", in, got, err)
		} else if u.Scheme != "https" || u.Host == "" {
			t.Errorf("Canonical(%q) = %q: net/url reads scheme %q host %q", in, got, u.Scheme, u.Host)
		}
	}
}

func TestCanonicalMalformed(t *testing.T) {
	for _, tc := range canonBadCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.in)
			if err == nil {
				t.Fatalf("Canonical(%q) = %q, want an error", tc.in, got)
			}
			if got != "" {
				t.Errorf("Canonical(%q) returned %q with its error", tc.in, got)
			}
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Canonical(%q): error %T, want *URLError", tc.in, err)
			}
			if ue.URL != tc.in {
				t.Errorf("URLError.URL = %q, want %q", ue.URL, tc.in)
			}
			if !errors.Is(err, ErrMalformedURL) {
				t.Errorf("Canonical(%q): %v does not wrap ErrMalformedURL", tc.in, err)
			}
			if k := Key(tc.in); k != "" {
				t.Errorf("Key(%q) = %q, want \"\"", tc.in, k)
			}
		})
	}
}

func TestURLError(t *testing.T) {
	_, err := Canonical("http://exa mple.com")
	want := `canon: canonicalise "http://exa mple.com": invalid character in host`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %s", err, want)
	}
	inner := errors.New("inner")
	if e := (&URLError{URL: "x", Err: inner}); !errors.Is(e, inner) {
		t.Error("URLError does not unwrap to its Err")
	}
}

// canonGroups are sets of URLs for one resource each: the URLs of a group
// must meet, and no two groups may meet.
var canonGroups = [][]string{
	{"https://example.com/a?id=1", "http://www.example.com/a/?id=1&utm_source=x", "example.com//a?id=1#top"},
	{"https://example.com/a?id=2", "https://EXAMPLE.com:443/a?id=2"},
	{"https://example.com/a"},
	{"https://example.com/A"},
	{"https://example.com/a/b"},
	{"https://example.com/a%2Fb"},
	{"https://example.org/a"},
	{"https://example.com:8080/a"},
	{"https://example.com/", "https://example.com", "http://example.com:80", "https://www.example.com/#intro"},
	{"https://example.com/#/a"},
	{"https://example.com/#/b"},
	// One documentation page, two documented things (issue 17).
	{"https://pkg.go.dev/os#Getwd", "http://pkg.go.dev/os/#Getwd"},
	{"https://pkg.go.dev/os#ReadDir"},
	{"https://pkg.go.dev/os", "https://pkg.go.dev/os#top", "https://pkg.go.dev/os#:~:text=Getwd"},
	{"https://docs.python.org/3/library/os.html#os.getcwd", "https://docs.python.org/3/library/os.html#os.getcwd:~:text=cwd"},
	{"https://docs.python.org/3/library/os.html#os.listdir"},
	{"https://developer.mozilla.org/en-US/docs/Web/API/fetch#syntax"},
	{"https://developer.mozilla.org/en-US/docs/Web/API/fetch#examples"},
	{"https://example.com/a?id=1&id=2", "https://example.com/a?id=2&id=1"},
	{"https://example.com/a?id=1&x=2", "https://example.com/a?x=2&id=1"},
	{"https://example.com/a?x=1&id=2"},
	{"https://example.com/s?q=a+b", "https://example.com/s?q=a%20b"},
	{"https://example.com/s?q=a%2Bb"},
	{"https://youtube.com/watch?v=dQw4w9WgXcQ", "https://youtu.be/dQw4w9WgXcQ", "https://www.youtube.com/embed/dQw4w9WgXcQ", "https://m.youtube.com/watch?v=dQw4w9WgXcQ&list=x", "https://www.youtube.com/shorts/dQw4w9WgXcQ", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
	{"https://youtube.com/watch?v=dQw4w9WgXcq"},
	{"https://arxiv.org/abs/2401.12345", "arxiv.org/abs/2401.12345v2", "https://arxiv.org/pdf/2401.12345v2", "https://arxiv.org/pdf/2401.12345.pdf", "https://export.arxiv.org/abs/2401.12345"},
	{"https://arxiv.org/abs/2401.12346"},
	{"https://arxiv.org/abs/hep-th/9901001", "https://arxiv.org/pdf/hep-th/9901001v3"},
	{"https://github.com/foo/bar/issues/42", "https://githubissues.com/foo/bar/42", "https://github.com/Foo/Bar/issues/42"},
	{"https://github.com/foo/bar/issues/43"},
	{"https://github.com/foo/bar/pull/42"},
	{"https://github.com/foo/bar/blob/main/A.md"},
	{"https://github.com/foo/bar/blob/main/a.md"},
	{"https://doi.org/10.1000/xyz", "doi:10.1000/XYZ", "http://dx.doi.org/10.1000/XYZ", "https://doi.org/10.1000%2Fxyz"},
	{"https://doi.org/10.1000/xyz1"},
	{"https://ja.wikipedia.org/wiki/東京", "https://ja.wikipedia.org/wiki/%e6%9d%b1%e4%ba%ac"},
	{"https://[::1]/a", "http://[0:0::1]:80/a"},
	{"https://[::2]/a"},
	{"file:///a/b.txt", "file:///a//b.txt", "FILE:///a/./b.txt"},
	{"file:///a/B.txt"},
}

func TestCanonicalGroups(t *testing.T) {
	owner := map[string]int{}
	for gi, group := range canonGroups {
		want := ""
		for _, in := range group {
			got, err := Canonical(in)
			if err != nil {
				t.Errorf("group %d: Canonical(%q): %v", gi, in, err)
				continue
			}
			canonCheckOutput(t, in, got)
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("group %d: %q gives %q, %q gives %q; want them to meet", gi, group[0], want, in, got)
			}
		}
		if og, ok := owner[want]; ok {
			t.Errorf("groups %d and %d meet at %q; want them apart", og, gi, want)
		}
		owner[want] = gi
	}
}

// canonBenchURLs is a mix of URLs as research agents cite them.
var canonBenchURLs = []string{
	"https://arxiv.org/abs/2401.12345v2",
	"https://arxiv.org/pdf/2310.06825.pdf",
	"https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs&index=2",
	"https://youtu.be/dQw4w9WgXcQ?si=B_RZg_I-lLaa7UU-",
	"https://github.com/golang/go/issues/61405",
	"https://github.com/TMC/LangChainGo/blob/main/llms/options.go#L42",
	"https://doi.org/10.1145/3442188.3445922",
	"http://dx.doi.org/10.1038/NATURE14539",
	"https://en.wikipedia.org/wiki/Transformer_(deep_learning_architecture)#History",
	"https://www.nytimes.com/2024/01/15/technology/ai-regulation.html?utm_source=twitter&utm_medium=social&smid=tw-share",
	"https://blog.example.com/posts/2024/01/why-go/?ref=hn",
	"https://pkg.go.dev/net/url#Parse",
	"https://docs.python.org/3/library/urllib.parse.html",
	"https://www.reuters.com/technology/artificial-intelligence/",
	"https://stackoverflow.com/questions/1234567/how-to-parse-url-in-go?noredirect=1&lq=1",
	"https://medium.com/@someone/a-long-title-about-llms-3f2a1b4c5d6e?source=rss----abc",
	"http://example.com:80/a/./b/../c//d?z=1&y=2&x=3",
	"https://ja.wikipedia.org/wiki/東京",
	"https://www.google.com/search?q=go+url+canonical&gclid=abc123",
	"file:///home/user/corpus/papers/attention.pdf",
}

func BenchmarkCanonical(b *testing.B) {
	n := 0
	for _, u := range canonBenchURLs {
		n += len(u)
	}
	b.SetBytes(int64(n / len(canonBenchURLs)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := Canonical(canonBenchURLs[i%len(canonBenchURLs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
