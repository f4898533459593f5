package deepresearch

import (
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
)

// TestFetcherTakesEveryField: each field of Config.Fetch reaches the
// fetcher's own configuration under its name, and the fetcher stamps
// pages on Config.Clock; a field added to FetchConfig and not passed on
// fails here.
func TestFetcherTakesEveryField(t *testing.T) {
	c := clock.NewFake(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	fc := FetchConfig{Allow: []string{"localhost:8080"}, Timeout: time.Second, MaxBytes: 7, MaxRedirects: -1,
		UserAgent: "ua", Resolver: &net.Resolver{}}
	r := &Researcher{cfg: Config{Fetch: fc, Clock: c}}
	got := reflect.ValueOf(r.fetcher())
	want := reflect.ValueOf(fc)
	for i := range want.NumField() {
		name := want.Type().Field(i).Name
		f := got.FieldByName(name)
		if !f.IsValid() {
			t.Errorf("the fetcher has no %s", name)
			continue
		}
		if !reflect.DeepEqual(f.Interface(), want.Field(i).Interface()) {
			t.Errorf("the fetcher's %s is %v; want %v", name, f.Interface(), want.Field(i).Interface())
		}
	}
	if r.fetcher().Clock != c {
		t.Error("the fetcher's clock is not Config.Clock")
	}
}
