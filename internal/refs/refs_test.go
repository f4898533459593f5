package refs

import (
	"slices"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	type want struct {
		kind    string
		targets []string
	}
	tests := []struct {
		name string
		text string
		want []want
	}{
		{"see an emphasised title", "For the controller's files, see *Control Groups*.",
			[]want{{KindTitle, []string{"Control Groups"}}}},
		{"refer to an emphasised title", "Before hibernating, refer to *Using swap files with software suspend* first.",
			[]want{{KindTitle, []string{"Using swap files with software suspend"}}}},
		{"a title in plain words: every prefix, longest first", "The API is described in LED handling under Linux, with examples.",
			[]want{{KindTitle, []string{"LED handling under Linux", "LED handling under", "LED handling"}}}},
		{"a quoted title", `See "The Linux kernel user's and administrator's guide" for more.`,
			[]want{{KindTitle, []string{"The Linux kernel user's and administrator's guide"}}}},
		{"a hyphenated path stays whole", "Control it with prctl; see Documentation/userspace-api/spec_ctrl.rst for details.",
			[]want{{KindPath, []string{"Documentation/userspace-api/spec_ctrl.rst"}}}},
		{"prose with a slash is no path; a package path is", "Read and/or write over TCP/IP with I/O limits, as os/exec does.",
			[]want{{KindPath, []string{"os/exec"}}}},
		{"a relative path", "The knobs are in ../admin-guide/cgroup-v2.rst and nowhere else.",
			[]want{{KindPath, []string{"../admin-guide/cgroup-v2.rst"}}}},
		{"a Markdown link: its target, then its text", "Read [the cgroup guide](../admin-guide/cgroup-v2.rst#memory \"Memory\") first.",
			[]want{{KindLink, []string{"../admin-guide/cgroup-v2.rst#memory", "the cgroup guide"}}}},
		{"an HTML link", `<p>Use <a class="x" href="../library/os.path.html">os.path</a> instead.</p>`,
			[]want{{KindLink, []string{"../library/os.path.html", "os.path"}}}},
		{"rst roles", "Use :doc:`the LED class <leds-class>` and :ref:`cgroup-v2` or :doc:`/admin-guide/sysctl/vm`.",
			[]want{{KindPath, []string{"./leds-class", "the LED class"}}, {KindLabel, []string{"cgroup-v2"}}, {KindPath, []string{"/admin-guide/sysctl/vm"}}}},
		{"an rst hyperlink", "See `the wiki <https://wiki.example.org/Btrfs>`_ for more.",
			[]want{{KindLink, []string{"https://wiki.example.org/Btrfs", "the wiki"}}}},
		{"a bare URL, without the sentence's full stop", "It is at https://go.dev/blog/go1.13-errors.",
			[]want{{KindLink, []string{"https://go.dev/blog/go1.13-errors"}}}},
		{"a lone plain word after see is no title", "See below. See kernel-parameters for the list.",
			[]want{{KindTitle, []string{"kernel-parameters for the list", "kernel-parameters for the", "kernel-parameters for", "kernel-parameters"}}}},
		{"each target once", "See a/b-c.md. Then see a/b-c.md again.",
			[]want{{KindPath, []string{"a/b-c.md"}}}},
		{"no reference", "Nothing here points anywhere.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.text)
			var g []want
			for _, r := range got {
				g = append(g, want{r.Kind, r.Targets})
			}
			if !slices.EqualFunc(g, tt.want, func(a, b want) bool { return a.kind == b.kind && slices.Equal(a.targets, b.targets) }) {
				t.Errorf("Find(%q) = %q, want %q", tt.text, g, tt.want)
			}
		})
	}
}

// TestFindSentence: each reference carries its own sentence, and the
// references come in text order.
func TestFindSentence(t *testing.T) {
	text := "Memory is limited per group. The files that set the limit are listed in *Control Groups*. Other text follows.\n\nA new paragraph names [x](y/z.md)."
	got := Find(text)
	if len(got) != 2 {
		t.Fatalf("Find = %+v, want 2 references", got)
	}
	if want := "The files that set the limit are listed in *Control Groups*."; got[0].Sentence != want {
		t.Errorf("sentence %q, want %q", got[0].Sentence, want)
	}
	if want := "A new paragraph names [x](y/z.md)."; got[1].Sentence != want {
		t.Errorf("sentence %q, want %q", got[1].Sentence, want)
	}
	if got[0].At >= got[1].At {
		t.Errorf("references out of text order: %+v", got)
	}
}

// TestFindBounded: a text of many references gives at most MaxRefs.
func TestFindBounded(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		b.WriteString("see dir/file-")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteByte(byte('a' + i%26))
		b.WriteString(string(rune('a'+i/26)) + ".md. ")
	}
	if got := Find(b.String()); len(got) != MaxRefs {
		t.Errorf("%d references, want MaxRefs (%d)", len(got), MaxRefs)
	}
}

// FuzzFind: any text gives at most MaxRefs references in text order,
// each with a target and a sentence that is part of the text's words.
func FuzzFind(f *testing.F) {
	f.Add("see *Control Groups* and [a](../b-c/d.rst#x) or :doc:`e <f>`")
	f.Add("`x <http://a/b>`_ <a href='q'>r</a> refer to \"T\" https://h/p.")
	f.Fuzz(func(t *testing.T, text string) {
		got := Find(text)
		if len(got) > MaxRefs {
			t.Fatalf("%d references", len(got))
		}
		for i, r := range got {
			if len(r.Targets) == 0 || r.Targets[0] == "" {
				t.Fatalf("reference %d has no target: %+v", i, r)
			}
			if i > 0 && got[i-1].At > r.At {
				t.Fatalf("references out of order: %+v", got)
			}
		}
	})
}
