// This file holds the benchmarks of loading a configuration: what a start
// and every reload pay before the new plan serves.
package conf

import (
	"os"
	"path/filepath"
	"testing"
)

// benchSeed004Conf is the seed 004 site as testdata/seed004.conftest has
// it: the article's snippets inside a server with listen, root and index.
const benchSeed004Conf = `worker_processes 1;
events {worker_connections 768;	}
http {
keepalive_timeout 6;
include mime.types;
server {
listen 8080;
server_name example.com;
root www;
index index.php index.html;
location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml)$ {
    access_log        off;
    log_not_found     off;
    expires           30d;
}

if (!-e $request_filename) {
rewrite /(.+)/$ /index.php?q=$1 last;
rewrite ^/(.+)$ /index.php?q=$1 last;
}

 location ~ \.php$
	{
		fastcgi_pass 127.0.0.1:9000;
		fastcgi_index index.php;
		fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
		
		include fastcgi_params;
	}
}
}
`

// BenchmarkLoadConfig reads, parses and compiles the seed 004 config with
// the full mime.types and fastcgi_params from disk, as edge -t and a
// reload do. Bytes are those of the three files.
func BenchmarkLoadConfig(b *testing.B) {
	dir := b.TempDir()
	total := 0
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
		total += len(data)
	}
	write("edge.conf", []byte(benchSeed004Conf))
	for _, name := range []string{"mime.types", "fastcgi_params"} {
		data, err := Builtin(name)
		if err != nil {
			b.Fatal(err)
		}
		write(name, data)
	}
	path := filepath.Join(dir, "edge.conf")
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path, LoadOptions{Prefix: dir}); err != nil {
			b.Fatal(err)
		}
	}
}
