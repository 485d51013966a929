// This file tests the password schemes against hashes written on Debian
// by `openssl passwd`, `htpasswd` (apache2-utils) and libxcrypt's crypt(3)
// (through Python's crypt module), and against the test vectors of Ulrich
// Drepper's SHA-crypt specification.

package authbasic

import (
	"errors"
	"strings"
	"testing"
)

const longPassword = "a-long-password-of-more-than-sixteen-characters-for-the-loops"

var cryptVectors = []struct {
	password, hash, source string
}{
	{"secret", "$1$saltsalt$9xy1btjgzLYfb7hivXtC//", "openssl passwd -1"},
	{"pässwörd", "$1$saltsalt$VReRfkQ8Hs1aayf/oxMkG/", "openssl passwd -1"},
	{"", "$1$saltsalt$5Jhcit4zN9UlGiA0txPkO0", "openssl passwd -1"},
	{longPassword, "$1$saltsalt$kBLQAKg1q8/Ga2GVQR8h7/", "openssl passwd -1"},
	{"secret", "$1$$ysVNzQc4CTMkp5daOdZ.3/", "crypt(3)"},
	{"secret", "$1$toolongs$OEwttSKsBv3b2i5Zx2s6p0", "crypt(3), salt cut to 8"},
	{"secret", "$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/", "openssl passwd -apr1"},
	{"pässwörd", "$apr1$abcdefgh$030j6I3f1zNCF9tihqdd11", "openssl passwd -apr1"},
	{"", "$apr1$abcdefgh$L.PT565ESX4Tp2bqNs7Ie.", "openssl passwd -apr1"},
	{longPassword, "$apr1$abcdefgh$r9bEa7bANAAY8YdZ1iWjE.", "openssl passwd -apr1"},
	{"secret", "$apr1$aTQ6VRlt$zosyzGE66m0r3rZmCuLxo.", "htpasswd -m"},
	{"secret", "$5$saltstring$C3o4O1TC6aRHF4FI.QSZMXtHbaj2gSXr4sUc/3NcUi.", "openssl passwd -5"},
	{"pässwörd", "$5$saltstring$bWOoCRTKNT.aiY/gJjvk1HjBYuRpcYQmcc5hqf6H4T4", "openssl passwd -5"},
	{longPassword, "$5$saltstring$pVyWC50cHh3GTZ.W6P0KaqhlsB2hRZm07eCznkElEf.", "openssl passwd -5"},
	{"secret", "$5$rounds=1000$abc$Mz4DiYKTnNKbZLo/mIp3d8Y4aQBhv3uhSwxLDy55/Y8", "openssl passwd -5"},
	{"secret", "$5$wbsVZ0yM4KmdG0XU$/ymnpT6L42wJtRPRF4UvfEyGesNpSnMbuoTGHWRAZo8", "htpasswd -2"},
	{"Hello world!", "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5", "Drepper's input, openssl passwd -5"},
	{"Hello world!", "$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA", "Drepper's input, openssl passwd -5"},
	{"secret", "$6$saltstring$AIsRs/Ee56G/tC8MEHhvReZTfx8u3rXXMl6eYrjCG9ibix19DxoMBLogdTET5Ukw9Sf7eZTITsuk0Ry5qulYz.", "openssl passwd -6"},
	{"pässwörd", "$6$saltstring$6PSVl254uv0cWCoUS0qzSX5NenRA/YFCwPzGA9ONu.MmmxqXTWHerEzD8WyuBl3ukfIZZU9uxLD6Bn6p7S3rG.", "openssl passwd -6"},
	{longPassword, "$6$saltstring$jxj6TOgIGPS5WtphEPQoKudsHnM43gqtTrMiKHSfz8gifhb6nCz/qsnQc1ht3AumiJCjyUZLYYmQGVfTh0My40", "openssl passwd -6"},
	{"secret", "$6$rounds=5000$toolongsaltstrin$YbDr56I3YnFMzFdiKjmvZJQFadx22PE13HAFEyCcNt7LQj3KY3OctF6ymrQHwjCUk.FcwaWOEAV7s6i0EMV4i0", "openssl passwd -6, salt cut to 16"},
	{"secret", "$6$$2M9DchxW4txWyTYoZrH9D3VvAAQxBpEezYsLY6Cao.jwzEXpyL9xwip9hiUZX7GqTqe/E/z6iKvZqXUuqniQH.", "crypt(3), empty salt"},
	{"secret", "$6$ngUs2eaewEdcEhYr$Jm43qWwc0O4ihfsr/q0E68cLDuFBbwk.NaThniOvA.zBk4NAhSezr4aVhLKPgMQhrt63jLVaoad8EKPXaw2M71", "htpasswd -5"},
	{"Hello world!", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1", "Drepper's input, openssl passwd -6"},
	{"secret", "$2y$05$9GF4mNGvB8qL34Bl7KnzxOALCpSntd04QS37IwEEbUsDcYuD5r0fS", "htpasswd -B"},
	{"secret", "$2y$04$BeLJytzwCAimr9DdiEJGk.FN036ULDQD64oAnkidT7oPw6MpaI0zu", "htpasswd -B -C 4"},
	{"secret", "$2b$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW", "crypt(3)"},
	{strings.Repeat("x", 80), "$2b$04$abcdefghijklmnopqrstuubzadhGtS2zEF.gu0yd0opP6cVzb.e0i", "crypt(3), cut to 72"},
	{"secret", "{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=", "htpasswd -s"},
	{"secret", "{SSHA}gVK8WC9YyFT1gMsQHTGCgT3sSv5zYWx0", "Python hashlib, salt \"salt\""},
	{"secret", "{PLAIN}secret", "nginx"},
	{"", "{PLAIN}", "nginx"},
}

func TestCryptVectors(t *testing.T) {
	for _, v := range cryptVectors {
		ok, err := Verify([]byte(v.password), []byte(v.hash))
		if err != nil || !ok {
			got, _ := Crypt([]byte(v.password), []byte(v.hash))
			t.Errorf("%s: %q against %s: %v, %v (computed %s)", v.source, v.password, v.hash, ok, err, got)
		}
		if len(v.password) > 72 && strings.HasPrefix(v.hash, "$2") {
			continue // bcrypt reads 72 bytes: one more changes nothing
		}
		ok, err = Verify([]byte(v.password+"x"), []byte(v.hash))
		if err != nil || ok {
			t.Errorf("%s: a wrong password matched %s: %v, %v", v.source, v.hash, ok, err)
		}
	}
}

func TestSSHAWithoutSalt(t *testing.T) {
	for _, bad := range []string{"{SSHA}", "{SSHA}!!!!", "{SSHA}c2FsdA=="} {
		if ok, err := Verify([]byte("secret"), []byte(bad)); ok || err != nil {
			t.Errorf("%q: %v %v, want a mismatch", bad, ok, err)
		}
	}
	// A value that does not decode has no salt: {SSHA} of SHA-1 alone.
	if got := string(sshaCrypt([]byte("secret"), []byte("{SSHA}!!!!"))); got != "{SSHA}5en6G6MezRroT3XKqkdPOmY/BfQ=" {
		t.Errorf("unsalted {SSHA} = %s", got)
	}
}

func TestCryptFailures(t *testing.T) {
	tests := []struct {
		hash string
		err  error
	}{
		{"$5$rounds=999$ab", nil}, // libxcrypt: "*0"
		{"$9$abc$def", nil},       // no such scheme: "*0"
		{"$1", nil},               // too short for any scheme
		{"", nil},                 // empty field
		{"*", nil},                // a locked account
		{"!", nil},                //
		{"$y$j9T$abcdefghijklmnop$3dL1LkYnZM.OVXuVdnnaKVDlLYT92dRwOzDZ5XiVCe.", ErrUnsupportedHash},
		{"secret", nil}, // a plain-text password reads as DES
		{"s:", nil},     // not a DES salt: "*0"
	}
	for _, tt := range tests {
		ok, err := Verify([]byte("secret"), []byte(tt.hash))
		if ok || !errors.Is(err, tt.err) {
			t.Errorf("%q: %v, %v; want false, %v", tt.hash, ok, err, tt.err)
		}
	}
}

func TestPasswordStopsAtNUL(t *testing.T) {
	ok, err := Verify([]byte("secret\x00more"), []byte("{PLAIN}secret"))
	if !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
}
