// This file holds the configuration text of seed 004 ("nginx: Feintuning
// Tips & Tricks"), verbatim, for the tests in several packages that run
// it: the article's main context, its asset location with expires 30d and
// access_log off, its WordPress "if (!-e $request_filename)" rewrites and
// its PHP location. One copy keeps them all on the text users run.

package testenv

import "strings"

// seed004Main is the article's main context and the opening of its http{}.
// It sets keepalive_timeout without saying where; http{} is the only place
// where it is valid.
const seed004Main = "worker_processes 1;\n" +
	"events {worker_connections 768;\t}\n" +
	"http {\n" +
	"keepalive_timeout 6;\n" +
	"include mime.types;\n"

// seed004Locations is the article's server-level text, tabs, odd
// indentation and a tab-only line included. {{FASTCGI_PASS}} and
// {{FASTCGI_PARAMS}} are filled in by Seed004Locations.
const seed004Locations = `location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml)$ {
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
		fastcgi_pass {{FASTCGI_PASS}};
		fastcgi_index index.php;
		fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
		
		include {{FASTCGI_PARAMS}};
	}
`

// Seed004Address is where the article passes PHP: fastcgi_pass's argument
// unless a test says otherwise.
const Seed004Address = "127.0.0.1:9000"

// Seed004Options fills in what the article leaves to the reader. The zero
// value is the article's text with an empty server{}: no listen, no root.
type Seed004Options struct {
	// HTTP holds whole lines put into http{} after the article's own
	// (keepalive_timeout, include mime.types), such as error_log. None by
	// default.
	HTTP string
	// Server holds whole lines that open the server{} block, before the
	// article's locations: listen, server_name, root, index. None by
	// default.
	Server string
	// FastCGIPass is fastcgi_pass's argument. Empty means Seed004Address.
	FastCGIPass string
	// FastCGIParams is the file the PHP location includes. Empty means the
	// article's "fastcgi_params", found next to the configuration (edge
	// falls back to its shipped copy).
	FastCGIParams string
}

// Seed004Conf returns the article's whole configuration: main context,
// http{} and one server{}.
func Seed004Conf(o Seed004Options) string {
	return seed004Main + o.HTTP + "server {\n" + o.Server +
		Seed004Locations(o.FastCGIPass, o.FastCGIParams) + "}\n}\n"
}

// Seed004Locations returns the article's server-level text alone (the
// asset location, the rewrites, the PHP location), for a test that builds
// the rest itself. Empty arguments mean Seed004Address and
// "fastcgi_params".
func Seed004Locations(fastcgiPass, fastcgiParams string) string {
	if fastcgiPass == "" {
		fastcgiPass = Seed004Address
	}
	if fastcgiParams == "" {
		fastcgiParams = "fastcgi_params"
	}
	return strings.NewReplacer("{{FASTCGI_PASS}}", fastcgiPass, "{{FASTCGI_PARAMS}}", fastcgiParams).Replace(seed004Locations)
}
