package runpack

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sample() Pack {
	return Pack{
		Manifest: Manifest{Program: "deepresearch test", Run: json.RawMessage(`{"id":"9f86d081884c7d65","question":"How?","status":"finished"}`)},
		Journal: [][]byte{
			[]byte(`{"v":1,"kind":"header","time":"2026-11-03T10:00:00Z","header":{"program":"p"}}`),
			[]byte(`{"v":1,"kind":"search","key":"k","time":"2026-11-03T10:00:01Z","search":{"query":"q","limit":5,"results":[]}}`),
		},
		Events: [][]byte{
			[]byte(`{"run_id":"9f86d081884c7d65","seq":1,"time":"2026-11-03T10:00:00Z","type":"run.started","agent":-1,"section":"","data":{"question":"How?"}}`),
		},
		Report: json.RawMessage(`{"version":1,"question":"How?"}`),
	}
}

func TestRoundTrip(t *testing.T) {
	for _, p := range []Pack{sample(), {Manifest: Manifest{Run: json.RawMessage(`{}`)}}} {
		var a, b bytes.Buffer
		if err := Write(&a, p); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, p); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Error("the same run packs to different bytes")
		}
		got, err := Read(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		p.Manifest.Format, p.Manifest.Version = Format, Version
		if !reflect.DeepEqual(got, p) {
			t.Errorf("read back\n%+v\nwant\n%+v", got, p)
		}
	}
}

// archive builds a tar.zst of the given members, as an attacker or
// another program might.
func archive(t *testing.T, members ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := zstd.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		tw.WriteHeader(&tar.Header{Name: m[0], Mode: 0o644, Size: int64(len(m[1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(m[1]))
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func TestReadRefuses(t *testing.T) {
	man := [2]string{manifestName, `{"format":"deepresearch-run","version":1}`}
	j, e := [2]string{journalName, ""}, [2]string{eventsName, ""}
	tests := []struct {
		name    string
		data    []byte
		message string
	}{
		{"not zstd", []byte("PK\x03\x04 a zip file"), "not a deepresearch run pack"},
		{"not tar", func() []byte {
			var b bytes.Buffer
			zw, _ := zstd.NewWriter(&b)
			zw.Write([]byte(strings.Repeat("x", 1024)))
			zw.Close()
			return b.Bytes()
		}(), "not a deepresearch run pack"},
		{"another format", archive(t, [2]string{manifestName, `{"format":"other","version":1}`}, j, e), `names format "other"`},
		{"newer version", archive(t, [2]string{manifestName, `{"format":"deepresearch-run","version":2,"program":"deepresearch v9"}`}, j, e), `pack version 2 (written by "deepresearch v9"); this program reads version 1`},
		{"unknown member", archive(t, man, j, e, [2]string{"../../etc/passwd", "x"}), `unknown member "../../etc/passwd"`},
		{"twice", archive(t, man, j, j, e), "not a single regular file"},
		{"missing events", archive(t, man, j), "lacks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("err = %v, want %q", err, tc.message)
			}
		})
	}
	if _, err := Read(bytes.NewReader(tests[0].data)); !errors.Is(err, ErrFormat) {
		t.Errorf("not ErrFormat: %v", err)
	}
}

func TestReadBounded(t *testing.T) {
	defer func(n int64) { maxBytes = n }(maxBytes)
	maxBytes = 4096
	big := archive(t, [2]string{manifestName, `{"format":"deepresearch-run","version":1}`}, [2]string{journalName, strings.Repeat("{}\n", 4096)}, [2]string{eventsName, ""})
	if _, err := Read(bytes.NewReader(big)); err == nil || !errors.Is(err, ErrFormat) {
		t.Errorf("a pack over the limit: %v", err)
	}
}
