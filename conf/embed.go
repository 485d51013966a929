// This file embeds the files edge ships: mime.types, fastcgi_params and
// fastcgi.conf (the same contents as nginx's), and the default site
// configuration used when edge runs without -c.
package conf

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed mime.types fastcgi_params fastcgi.conf default.conf default-php.conf
var builtinFiles embed.FS

// Builtin returns one of the shipped files by name.
func Builtin(name string) ([]byte, error) {
	return builtinFiles.ReadFile(name)
}

// shippedNames are the files a config may include by their usual names.
var shippedNames = map[string]bool{"mime.types": true, "fastcgi_params": true, "fastcgi.conf": true}

// ReadFileWithBuiltins reads a file from disk; when it does not exist and
// its name is one edge ships (mime.types, fastcgi_params, fastcgi.conf),
// edge's copy is used instead, so a config moved off a machine with nginx
// still loads. The second result says the builtin copy was used.
func ReadFileWithBuiltins(path string) ([]byte, bool, error) {
	return readWithBuiltins(os.ReadFile, path)
}

// readWithBuiltins is ReadFileWithBuiltins over another reader.
func readWithBuiltins(read ReadFileFunc, path string) ([]byte, bool, error) {
	data, err := read(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return data, false, err
	}
	base := filepath.Base(path)
	if shippedNames[base] {
		if b, berr := builtinFiles.ReadFile(base); berr == nil {
			return b, true, nil
		}
	}
	return nil, false, err
}
