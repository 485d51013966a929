// This file holds the benchmarks of loading a configuration: what a start
// and every reload pay before the new plan serves.
package conf

import (
	"os"
	"path/filepath"
	"testing"

	"edge/testenv"
)

// benchSeed004Conf is the seed 004 site as testdata/seed004.conftest has
// it: the article's snippets inside a server with listen, root and index.
var benchSeed004Conf = testenv.Seed004Conf(testenv.Seed004Options{
	Server: "listen 8080;\nserver_name example.com;\nroot www;\nindex index.php index.html;\n",
})

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
