// This file holds nginx's classes of the bytes of a header name, which
// both engines' header views apply (ngx_http_parse_header_line): which
// names are invalid (ignore_invalid_headers drops them) and which bytes
// make nginx refuse a request.
package proxy

// The classes of a header name's bytes, as ngx_http_parse_header_line
// sorts them: letters, digits and "-" make a valid name, "_" makes one
// only with underscores_in_headers, any other byte an invalid one (which
// ignore_invalid_headers, on by default, drops), and a byte <= 0x20 or DEL
// a request nginx refuses with 400 (since 1.21.1). They are flags, so
// that the classes of a name are the OR of its bytes'.
const (
	NameValid      byte = 0
	NameUnderscore byte = 1 << iota
	NameInvalid
	NameRefused
	NameColon
)

var NameClass = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			t[c] = NameValid
		case c == '_':
			t[c] = NameUnderscore
		case c == ':':
			t[c] = NameColon
		case c <= 0x20 || c == 0x7f:
			t[c] = NameRefused
		default:
			t[c] = NameInvalid
		}
	}
	return t
}()

// InvalidHeaderName reports whether nginx would find a header name invalid.
func InvalidHeaderName(name string, underscores bool) bool {
	var class byte
	for i := 0; i < len(name); i++ {
		class |= NameClass[name[i]]
	}
	return class&^NameUnderscore != 0 || class != 0 && !underscores
}
