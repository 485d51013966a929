package conf

import "testing"

// TestEachLocationVisitsEveryKind: server levels, nested prefix and regex
// locations, `if` blocks at the server, location and nested location levels and named
// locations are each visited once.
func TestEachLocationVisitsEveryKind(t *testing.T) {
	plan, err := LoadText("walk.conf", []byte(`events {}
http {
    server {
        listen 127.0.0.1:8080;
        if ($host = a) { return 200; }
        location / {
            location /inner/ { if ($uri) { return 204; } }
            location ~ \.php$ { }
            if ($args) { return 204; }
        }
        location @named { }
    }
}
`), LoadOptions{Prefix: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	if err := plan.EachLocation(func(l *Location) error {
		count[l.Name]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"/": 1, "/inner/": 1, `\.php$`: 1, "if": 3, "@named": 1}
	for name, n := range want {
		if count[name] != n {
			t.Errorf("%q visited %d times, want %d (all: %v)", name, count[name], n, count)
		}
	}
}
