// Package authbasic is the engine of nginx's auth_basic module
// (src/http/modules/ngx_http_auth_basic_module.c): the Authorization
// header as ngx_http_auth_basic_user reads it, the user file read for every
// request with nginx's line scanner, the password schemes of crypt.go, and
// the response nginx gives for each outcome (issue 15). It knows nothing of
// HTTP servers or configuration: the caller evaluates auth_basic's realm and
// auth_basic_user_file and applies the Result.
package authbasic

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
)

// ParseAuthorization reads an Authorization header value as
// ngx_http_auth_basic_user: "Basic" (any case) and a space, more spaces,
// then base64 (nginx's decoder: it stops at the first '=' and needs no
// padding) of "user:password" with a non-empty user. ok is false for
// anything else; nginx then answers 401 as for no header. The user is
// $remote_user whether or not the password matches.
func ParseAuthorization(value string) (user, password string, ok bool) {
	const basic = "Basic "
	if len(value) < len(basic) || !strings.EqualFold(value[:len(basic)], basic) {
		return "", "", false
	}
	enc := strings.TrimLeft(value[len(basic):], " ")
	if enc == "" {
		return "", "", false
	}
	dec, good := nginxBase64Decode([]byte(enc))
	if !good {
		return "", "", false
	}
	i := bytes.IndexByte(dec, ':')
	if i <= 0 {
		return "", "", false
	}
	return string(dec[:i]), string(dec[i+1:]), true
}

// Challenge is the WWW-Authenticate value of a 401: the realm goes in as
// it is, quotes included, as ngx_http_auth_basic_set_realm copies it.
func Challenge(realm string) string { return `Basic realm="` + realm + `"` }

// Off reports whether an evaluated auth_basic realm turns the check off:
// the literal "off", or a variable whose value is "off".
func Off(realm string) bool { return realm == "off" }

// Outcome is what the access phase does with the request.
type Outcome int

const (
	// Allowed: the password matched; the request goes on.
	Allowed Outcome = iota
	// Unauthorized: 401 with WWW-Authenticate: Challenge(realm).
	Unauthorized
	// Forbidden: 403 (the user file does not exist).
	Forbidden
	// Failed: 500 (the file could not be opened or read, or crypt failed).
	Failed
)

// Result is the outcome with the status and the error log line nginx
// writes for it.
type Result struct {
	Outcome Outcome
	// Status is the HTTP status: 0 for Allowed, else 401, 403 or 500.
	Status int
	// Level is the error log level of Message: "error" or "crit".
	Level   string
	Message string
	// User is the user the credentials named ("" without credentials).
	User string
}

// Check authenticates a request whose Authorization header is
// authorization ("" if it sent none) against userFile, reading the file
// now, as nginx does for every request. A missing file is a 403 and an
// unreadable one a 500 with a [crit]; a password in a scheme edge does not
// compute is a 500 with a [crit] "crypt() failed" (see ErrUnsupportedHash).
func Check(userFile, authorization string) Result {
	user, password, ok := ParseAuthorization(authorization)
	if !ok {
		return Result{Outcome: Unauthorized, Status: 401, Level: "error",
			Message: "no user/password was provided for basic authentication"}
	}
	f, err := os.Open(userFile)
	if err != nil {
		r := Result{Outcome: Failed, Status: 500, Level: "crit", User: user}
		if errors.Is(err, fs.ErrNotExist) {
			r.Outcome, r.Status, r.Level = Forbidden, 403, "error"
		}
		r.Message = `open() "` + userFile + `" failed (` + errnoText(err) + `)`
		return r
	}
	defer f.Close()
	hash, found, err := FindUser(f, []byte(user))
	if err != nil {
		return Result{Outcome: Failed, Status: 500, Level: "crit", User: user,
			Message: `pread() "` + userFile + `" failed (` + errnoText(err) + `)`}
	}
	if !found {
		return Result{Outcome: Unauthorized, Status: 401, Level: "error", User: user,
			Message: `user "` + user + `" was not found in "` + userFile + `"`}
	}
	match, err := Verify([]byte(password), hash)
	switch {
	case err != nil:
		return Result{Outcome: Failed, Status: 500, Level: "crit", User: user,
			Message: "crypt() failed (" + err.Error() + ")"}
	case !match:
		return Result{Outcome: Unauthorized, Status: 401, Level: "error", User: user,
			Message: `user "` + user + `": password mismatch`}
	}
	return Result{Outcome: Allowed, User: user}
}

// errnoText is the "(2: No such file or directory)" part of nginx's
// messages, as near as Go's errors give it.
func errnoText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "2: No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "13: Permission denied"
	}
	return err.Error()
}

// FindUser scans an htpasswd file for user, byte by byte as nginx's
// handler does, and returns its password field. The rules that follow
// from nginx's scanner:
//   - a line starting with '#' or CR is skipped; an empty line is nothing;
//   - the line must start with exactly user and ':' (no trimming);
//   - the password field ends at ':', CR, LF or the end of the file, so
//     "user:hash:comment" works;
//   - a line that is a strict prefix of "user:" ends where the scanner is
//     still matching, and it then skips the NEXT line too (the LF that
//     ended the mismatch was the one it waits for);
//   - the first matching line wins.
func FindUser(r io.Reader, user []byte) (hash []byte, found bool, err error) {
	const (
		login = iota
		passwd
		skip
	)
	state, pos := login, 0
	var buf [4096]byte
	for {
		n, rerr := r.Read(buf[:])
		for _, c := range buf[:n] {
			switch state {
			case login:
				if pos == 0 {
					if c == '#' || c == '\r' {
						state = skip
						continue
					}
					if c == '\n' {
						continue
					}
				}
				// nginx compares against the decoded "user:password",
				// so position len(user) must be the ':'.
				want := byte(':')
				if pos < len(user) {
					want = user[pos]
				}
				if c != want {
					state = skip
					continue
				}
				if pos == len(user) {
					state = passwd
				}
				pos++
			case passwd:
				if c == '\n' || c == '\r' || c == ':' {
					return hash, true, nil
				}
				hash = append(hash, c)
			case skip:
				if c == '\n' {
					state, pos = login, 0
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, false, rerr
		}
	}
	if state == passwd {
		return hash, true, nil
	}
	return nil, false, nil
}

// EncodeCredentials is the Authorization value for user and password, for
// tests and for clients.
func EncodeCredentials(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}
