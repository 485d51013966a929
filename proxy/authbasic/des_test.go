// This file tests traditional DES crypt against libxcrypt (Perl's crypt
// on Debian) and its DES core against crypto/des.

package authbasic

import (
	"crypto/des"
	"encoding/binary"
	"testing"
)

var desVectors = []struct{ password, hash string }{
	{"secret", "abNANd1rDfiNc"},
	{"secret", "..EBVOMug1tuI"},
	{"secret", "zz1T8N4tWvmbE"},
	{"secret", "./17m29LFAflg"},
	{"secret", "Z9QrkD/2Zwzhk"},
	{"secret", "a.p.EoZq2pwgo"},
	{"pässwörd", "abzp3RXJm5gNA"},
	{"pässwörd", "..VjoufsVUYCc"},
	{"pässwörd", "zzjOGqaU2D1ew"},
	{"pässwörd", "./vYBXr45rAoM"},
	{"pässwörd", "Z9byQaJ4wznWI"},
	{"pässwörd", "a.C6Aiiiy.Mzk"},
	{"", "abmF1QH4PEr.E"},
	{"", "..X8NBuQ4l6uQ"},
	{"", "zz6dpSdr.LHZw"},
	{"", "./Una9Fi.seRo"},
	{"", "Z926fCRWZHZFM"},
	{"", "a.NrGL6VgsvbQ"},
	{"longerthaneight", "abNyxOnyxSgjw"},
	{"longerthaneight", "..QW4imy5ekiU"},
	{"longerthaneight", "zz6XwEAsbAWcE"},
	{"longerthaneight", "./haKoGjqSo/Y"},
	{"longerthaneight", "Z9qD2xcFd4wIc"},
	{"longerthaneight", "a.G5kTog6tJ7A"},
	{"a", "abxxB7HlIeckU"},
	{"a", "..4/MD05HLWjI"},
	{"a", "zzJZ5PtvFqi9o"},
	{"a", "./xT2u5QYaHcU"},
	{"a", "Z94txC3IL4BW2"},
	{"a", "a.SRMmgNIgl1w"},
	{"secret", "AomWQxERVFjdc"}, // htpasswd -d
}

func TestDESCrypt(t *testing.T) {
	for _, v := range desVectors {
		ok, err := Verify([]byte(v.password), []byte(v.hash))
		if !ok || err != nil {
			t.Errorf("%q against %s: %v %v (computed %s)", v.password, v.hash, ok, err, desCrypt([]byte(v.password), []byte(v.hash[:2])))
		}
	}
	// Only eight characters count.
	if ok, _ := Verify([]byte("longerthXXXX"), []byte("abNyxOnyxSgjw")); !ok {
		t.Error("the ninth character changed the DES hash")
	}
}

// With salt ".." (no swaps) one round of desEncrypt is plain DES.
func TestDESCore(t *testing.T) {
	e := desE
	for i := uint64(0); i < 50; i++ {
		var key, plain [8]byte
		binary.BigEndian.PutUint64(key[:], i*0x9e3779b97f4a7c15)
		binary.BigEndian.PutUint64(plain[:], i*0xc2b2ae3d27d4eb4f)
		c, err := des.NewCipher(key[:])
		if err != nil {
			t.Fatal(err)
		}
		var want [8]byte
		c.Encrypt(want[:], plain[:])
		ks := desSubkeys(key)
		if got := desEncrypt(bitsOf(plain), &ks, &e).bytes(); got != want {
			t.Fatalf("key %x block %x: %x, crypto/des %x", key, plain, got, want)
		}
	}
}
