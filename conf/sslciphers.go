// sslciphers.go maps nginx's ssl_ciphers, ssl_protocols and ssl_ecdh_curve
// onto Go's crypto/tls. ssl_ciphers takes an OpenSSL cipher string, so this
// file implements OpenSSL's grammar and ordering (ssl/ssl_ciph.c, 3.0) over a
// table of OpenSSL's suites, including the many that Go lacks, and then keeps
// what Go can do and says, one warning per kind, what it left out.

package conf

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// SSLCipherResult is what an OpenSSL cipher string means for Go's crypto/tls.
//
// It covers TLS 1.0-1.2 only. TLS 1.3 always uses Go's own suites
// (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384,
// TLS_CHACHA20_POLY1305_SHA256) whatever ssl_ciphers says: Go does not let
// them be configured, and OpenSSL too keeps them out of the cipher string.
type SSLCipherResult struct {
	// Suites are TLS 1.0-1.2 suites, in the resulting order (for
	// tls.Config.CipherSuites). Go ignores that order and picks by client and
	// server hardware; it is kept for "edge -T" and for the reader.
	Suites []uint16
	// Warnings are things asked for that Go does not do and what edge uses
	// instead, one sentence each, in nginx's wording, for [warn] lines.
	Warnings []string
}

// sslBits is a set of algorithms of one kind (key exchange, authentication,
// encryption, MAC or strength class), like OpenSSL's SSL_CIPHER masks: a
// selector matches a suite when they share a bit, and "A+B" intersects.
type sslBits uint32

// Key exchange.
const (
	sslKxRSA sslBits = 1 << iota
	sslKxDHE
	sslKxECDHE
	sslKxPSK
	sslKxRSAPSK
	sslKxDHEPSK
	sslKxECDHEPSK
	sslKxSRP
)

// Authentication.
const (
	sslAuRSA sslBits = 1 << iota
	sslAuDSS
	sslAuECDSA
	sslAuNULL
	sslAuPSK
	sslAuSRP
)

// Bulk encryption.
const (
	sslEncNULL sslBits = 1 << iota
	sslEncRC4
	sslEncRC2
	sslEncDES
	sslEnc3DES
	sslEncIDEA
	sslEncSEED
	sslEncAES128
	sslEncAES256
	sslEncAESGCM128
	sslEncAESGCM256
	sslEncAESCCM128
	sslEncAESCCM256
	sslEncAESCCM8128
	sslEncAESCCM8256
	sslEncCAMELLIA128
	sslEncCAMELLIA256
	sslEncARIAGCM128
	sslEncARIAGCM256
	sslEncCHACHA20
)

// Encryption groups, as OpenSSL's aliases name them.
const (
	sslEncAESGCM   = sslEncAESGCM128 | sslEncAESGCM256
	sslEncAESCCM8  = sslEncAESCCM8128 | sslEncAESCCM8256
	sslEncAESCCM   = sslEncAESCCM128 | sslEncAESCCM256 | sslEncAESCCM8
	sslEncAES      = sslEncAES128 | sslEncAES256 | sslEncAESGCM | sslEncAESCCM
	sslEncCAMELLIA = sslEncCAMELLIA128 | sslEncCAMELLIA256
	sslEncARIA     = sslEncARIAGCM128 | sslEncARIAGCM256
	sslEnc256      = sslEncAES256 | sslEncAESGCM256 | sslEncAESCCM256 | sslEncAESCCM8256 |
		sslEncCAMELLIA256 | sslEncARIAGCM256 | sslEncCHACHA20
)

// MAC.
const (
	sslMacMD5 sslBits = 1 << iota
	sslMacSHA1
	sslMacSHA256
	sslMacSHA384
	sslMacAEAD
)

// Strength classes (HIGH, MEDIUM, LOW, EXP). NULL encryption has none.
const (
	sslHigh sslBits = 1 << iota
	sslMedium
	sslLow
	sslExport
)

// Lowest protocol a suite needs, as OpenSSL's min_tls; the SSLv3, TLSv1 and
// TLSv1.2 aliases match it exactly.
const (
	sslSSL3  uint16 = 0x0300
	sslTLS1  uint16 = 0x0301
	sslTLS12 uint16 = 0x0303
)

// sslSuite is one TLS 1.0-1.2 suite under its OpenSSL name.
type sslSuite struct {
	name             string
	id               uint16 // IANA code point, which is also Go's constant
	kx, au, enc, mac sslBits
	proto            uint16
	export           bool // 1990s export grade: 40-bit keys
}

// class is the suite's HIGH/MEDIUM/LOW/EXP class (OpenSSL 3 values; 3DES
// moved from HIGH to MEDIUM after SWEET32).
func (s *sslSuite) class() sslBits {
	switch {
	case s.export:
		return sslExport
	case s.enc == sslEncNULL:
		return 0
	case s.enc == sslEncDES:
		return sslLow
	case s.enc&(sslEncRC4|sslEnc3DES|sslEncIDEA|sslEncSEED) != 0:
		return sslMedium
	}
	return sslHigh
}

// bits is the suite's strength in bits, which @STRENGTH and @SECLEVEL use.
func (s *sslSuite) bits() int {
	switch {
	case s.export:
		return 40
	case s.enc == sslEncNULL:
		return 0
	case s.enc == sslEncDES:
		return 56
	case s.enc == sslEnc3DES:
		return 112
	case s.enc&sslEnc256 != 0:
		return 256
	}
	return 128
}

// notDefault reports whether OpenSSL 3 leaves the suite out of DEFAULT
// (what COMPLEMENTOFDEFAULT selects).
func (s *sslSuite) notDefault() bool {
	const enc = sslEncAESCCM | sslEncCAMELLIA | sslEncARIA | sslEncRC4 | sslEncRC2 |
		sslEncDES | sslEnc3DES | sslEncIDEA | sslEncSEED
	return s.export || s.au&(sslAuNULL|sslAuDSS) != 0 || s.enc&enc != 0
}

// sslSuiteTable lists OpenSSL's TLS 1.0-1.2 suites by code point: those of
// OpenSSL 3.0 plus the RC4, DES, IDEA, SEED and export suites of the OpenSSL
// 1.0.x era that old nginx configurations still name. The last column marks
// export suites.
var sslSuiteTable = []sslSuite{
	{"NULL-MD5", 0x0001, sslKxRSA, sslAuRSA, sslEncNULL, sslMacMD5, sslSSL3, false},
	{"NULL-SHA", 0x0002, sslKxRSA, sslAuRSA, sslEncNULL, sslMacSHA1, sslSSL3, false},
	{"EXP-RC4-MD5", 0x0003, sslKxRSA, sslAuRSA, sslEncRC4, sslMacMD5, sslSSL3, true},
	{"RC4-MD5", 0x0004, sslKxRSA, sslAuRSA, sslEncRC4, sslMacMD5, sslSSL3, false},
	{"RC4-SHA", 0x0005, sslKxRSA, sslAuRSA, sslEncRC4, sslMacSHA1, sslSSL3, false},
	{"EXP-RC2-CBC-MD5", 0x0006, sslKxRSA, sslAuRSA, sslEncRC2, sslMacMD5, sslSSL3, true},
	{"IDEA-CBC-SHA", 0x0007, sslKxRSA, sslAuRSA, sslEncIDEA, sslMacSHA1, sslSSL3, false},
	{"EXP-DES-CBC-SHA", 0x0008, sslKxRSA, sslAuRSA, sslEncDES, sslMacSHA1, sslSSL3, true},
	{"DES-CBC-SHA", 0x0009, sslKxRSA, sslAuRSA, sslEncDES, sslMacSHA1, sslSSL3, false},
	{"DES-CBC3-SHA", 0x000A, sslKxRSA, sslAuRSA, sslEnc3DES, sslMacSHA1, sslSSL3, false},
	{"EXP-EDH-DSS-DES-CBC-SHA", 0x0011, sslKxDHE, sslAuDSS, sslEncDES, sslMacSHA1, sslSSL3, true},
	{"EDH-DSS-DES-CBC-SHA", 0x0012, sslKxDHE, sslAuDSS, sslEncDES, sslMacSHA1, sslSSL3, false},
	{"EDH-DSS-DES-CBC3-SHA", 0x0013, sslKxDHE, sslAuDSS, sslEnc3DES, sslMacSHA1, sslSSL3, false},
	{"EXP-EDH-RSA-DES-CBC-SHA", 0x0014, sslKxDHE, sslAuRSA, sslEncDES, sslMacSHA1, sslSSL3, true},
	{"EDH-RSA-DES-CBC-SHA", 0x0015, sslKxDHE, sslAuRSA, sslEncDES, sslMacSHA1, sslSSL3, false},
	{"EDH-RSA-DES-CBC3-SHA", 0x0016, sslKxDHE, sslAuRSA, sslEnc3DES, sslMacSHA1, sslSSL3, false},
	{"EXP-ADH-RC4-MD5", 0x0017, sslKxDHE, sslAuNULL, sslEncRC4, sslMacMD5, sslSSL3, true},
	{"ADH-RC4-MD5", 0x0018, sslKxDHE, sslAuNULL, sslEncRC4, sslMacMD5, sslSSL3, false},
	{"EXP-ADH-DES-CBC-SHA", 0x0019, sslKxDHE, sslAuNULL, sslEncDES, sslMacSHA1, sslSSL3, true},
	{"ADH-DES-CBC-SHA", 0x001A, sslKxDHE, sslAuNULL, sslEncDES, sslMacSHA1, sslSSL3, false},
	{"ADH-DES-CBC3-SHA", 0x001B, sslKxDHE, sslAuNULL, sslEnc3DES, sslMacSHA1, sslSSL3, false},
	{"PSK-NULL-SHA", 0x002C, sslKxPSK, sslAuPSK, sslEncNULL, sslMacSHA1, sslSSL3, false},
	{"DHE-PSK-NULL-SHA", 0x002D, sslKxDHEPSK, sslAuPSK, sslEncNULL, sslMacSHA1, sslSSL3, false},
	{"RSA-PSK-NULL-SHA", 0x002E, sslKxRSAPSK, sslAuRSA, sslEncNULL, sslMacSHA1, sslSSL3, false},
	{"AES128-SHA", 0x002F, sslKxRSA, sslAuRSA, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"DHE-DSS-AES128-SHA", 0x0032, sslKxDHE, sslAuDSS, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"DHE-RSA-AES128-SHA", 0x0033, sslKxDHE, sslAuRSA, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"ADH-AES128-SHA", 0x0034, sslKxDHE, sslAuNULL, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"AES256-SHA", 0x0035, sslKxRSA, sslAuRSA, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"DHE-DSS-AES256-SHA", 0x0038, sslKxDHE, sslAuDSS, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"DHE-RSA-AES256-SHA", 0x0039, sslKxDHE, sslAuRSA, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"ADH-AES256-SHA", 0x003A, sslKxDHE, sslAuNULL, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"NULL-SHA256", 0x003B, sslKxRSA, sslAuRSA, sslEncNULL, sslMacSHA256, sslTLS12, false},
	{"AES128-SHA256", 0x003C, sslKxRSA, sslAuRSA, sslEncAES128, sslMacSHA256, sslTLS12, false},
	{"AES256-SHA256", 0x003D, sslKxRSA, sslAuRSA, sslEncAES256, sslMacSHA256, sslTLS12, false},
	{"DHE-DSS-AES128-SHA256", 0x0040, sslKxDHE, sslAuDSS, sslEncAES128, sslMacSHA256, sslTLS12, false},
	{"CAMELLIA128-SHA", 0x0041, sslKxRSA, sslAuRSA, sslEncCAMELLIA128, sslMacSHA1, sslSSL3, false},
	{"DHE-DSS-CAMELLIA128-SHA", 0x0044, sslKxDHE, sslAuDSS, sslEncCAMELLIA128, sslMacSHA1, sslSSL3, false},
	{"DHE-RSA-CAMELLIA128-SHA", 0x0045, sslKxDHE, sslAuRSA, sslEncCAMELLIA128, sslMacSHA1, sslSSL3, false},
	{"ADH-CAMELLIA128-SHA", 0x0046, sslKxDHE, sslAuNULL, sslEncCAMELLIA128, sslMacSHA1, sslSSL3, false},
	{"DHE-RSA-AES128-SHA256", 0x0067, sslKxDHE, sslAuRSA, sslEncAES128, sslMacSHA256, sslTLS12, false},
	{"DHE-DSS-AES256-SHA256", 0x006A, sslKxDHE, sslAuDSS, sslEncAES256, sslMacSHA256, sslTLS12, false},
	{"DHE-RSA-AES256-SHA256", 0x006B, sslKxDHE, sslAuRSA, sslEncAES256, sslMacSHA256, sslTLS12, false},
	{"ADH-AES128-SHA256", 0x006C, sslKxDHE, sslAuNULL, sslEncAES128, sslMacSHA256, sslTLS12, false},
	{"ADH-AES256-SHA256", 0x006D, sslKxDHE, sslAuNULL, sslEncAES256, sslMacSHA256, sslTLS12, false},
	{"CAMELLIA256-SHA", 0x0084, sslKxRSA, sslAuRSA, sslEncCAMELLIA256, sslMacSHA1, sslSSL3, false},
	{"DHE-DSS-CAMELLIA256-SHA", 0x0087, sslKxDHE, sslAuDSS, sslEncCAMELLIA256, sslMacSHA1, sslSSL3, false},
	{"DHE-RSA-CAMELLIA256-SHA", 0x0088, sslKxDHE, sslAuRSA, sslEncCAMELLIA256, sslMacSHA1, sslSSL3, false},
	{"ADH-CAMELLIA256-SHA", 0x0089, sslKxDHE, sslAuNULL, sslEncCAMELLIA256, sslMacSHA1, sslSSL3, false},
	{"PSK-RC4-SHA", 0x008A, sslKxPSK, sslAuPSK, sslEncRC4, sslMacSHA1, sslSSL3, false},
	{"PSK-3DES-EDE-CBC-SHA", 0x008B, sslKxPSK, sslAuPSK, sslEnc3DES, sslMacSHA1, sslSSL3, false},
	{"PSK-AES128-CBC-SHA", 0x008C, sslKxPSK, sslAuPSK, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"PSK-AES256-CBC-SHA", 0x008D, sslKxPSK, sslAuPSK, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"DHE-PSK-AES128-CBC-SHA", 0x0090, sslKxDHEPSK, sslAuPSK, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"DHE-PSK-AES256-CBC-SHA", 0x0091, sslKxDHEPSK, sslAuPSK, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"RSA-PSK-AES128-CBC-SHA", 0x0094, sslKxRSAPSK, sslAuRSA, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"RSA-PSK-AES256-CBC-SHA", 0x0095, sslKxRSAPSK, sslAuRSA, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"SEED-SHA", 0x0096, sslKxRSA, sslAuRSA, sslEncSEED, sslMacSHA1, sslSSL3, false},
	{"DHE-DSS-SEED-SHA", 0x0099, sslKxDHE, sslAuDSS, sslEncSEED, sslMacSHA1, sslSSL3, false},
	{"DHE-RSA-SEED-SHA", 0x009A, sslKxDHE, sslAuRSA, sslEncSEED, sslMacSHA1, sslSSL3, false},
	{"ADH-SEED-SHA", 0x009B, sslKxDHE, sslAuNULL, sslEncSEED, sslMacSHA1, sslSSL3, false},
	{"AES128-GCM-SHA256", 0x009C, sslKxRSA, sslAuRSA, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"AES256-GCM-SHA384", 0x009D, sslKxRSA, sslAuRSA, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-AES128-GCM-SHA256", 0x009E, sslKxDHE, sslAuRSA, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-AES256-GCM-SHA384", 0x009F, sslKxDHE, sslAuRSA, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-DSS-AES128-GCM-SHA256", 0x00A2, sslKxDHE, sslAuDSS, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-DSS-AES256-GCM-SHA384", 0x00A3, sslKxDHE, sslAuDSS, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"ADH-AES128-GCM-SHA256", 0x00A6, sslKxDHE, sslAuNULL, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"ADH-AES256-GCM-SHA384", 0x00A7, sslKxDHE, sslAuNULL, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"PSK-AES128-GCM-SHA256", 0x00A8, sslKxPSK, sslAuPSK, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"PSK-AES256-GCM-SHA384", 0x00A9, sslKxPSK, sslAuPSK, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-AES128-GCM-SHA256", 0x00AA, sslKxDHEPSK, sslAuPSK, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-AES256-GCM-SHA384", 0x00AB, sslKxDHEPSK, sslAuPSK, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"RSA-PSK-AES128-GCM-SHA256", 0x00AC, sslKxRSAPSK, sslAuRSA, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"RSA-PSK-AES256-GCM-SHA384", 0x00AD, sslKxRSAPSK, sslAuRSA, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"PSK-AES128-CBC-SHA256", 0x00AE, sslKxPSK, sslAuPSK, sslEncAES128, sslMacSHA256, sslTLS1, false},
	{"PSK-AES256-CBC-SHA384", 0x00AF, sslKxPSK, sslAuPSK, sslEncAES256, sslMacSHA384, sslTLS1, false},
	{"PSK-NULL-SHA256", 0x00B0, sslKxPSK, sslAuPSK, sslEncNULL, sslMacSHA256, sslTLS1, false},
	{"PSK-NULL-SHA384", 0x00B1, sslKxPSK, sslAuPSK, sslEncNULL, sslMacSHA384, sslTLS1, false},
	{"DHE-PSK-AES128-CBC-SHA256", 0x00B2, sslKxDHEPSK, sslAuPSK, sslEncAES128, sslMacSHA256, sslTLS1, false},
	{"DHE-PSK-AES256-CBC-SHA384", 0x00B3, sslKxDHEPSK, sslAuPSK, sslEncAES256, sslMacSHA384, sslTLS1, false},
	{"DHE-PSK-NULL-SHA256", 0x00B4, sslKxDHEPSK, sslAuPSK, sslEncNULL, sslMacSHA256, sslTLS1, false},
	{"DHE-PSK-NULL-SHA384", 0x00B5, sslKxDHEPSK, sslAuPSK, sslEncNULL, sslMacSHA384, sslTLS1, false},
	{"RSA-PSK-AES128-CBC-SHA256", 0x00B6, sslKxRSAPSK, sslAuRSA, sslEncAES128, sslMacSHA256, sslTLS1, false},
	{"RSA-PSK-AES256-CBC-SHA384", 0x00B7, sslKxRSAPSK, sslAuRSA, sslEncAES256, sslMacSHA384, sslTLS1, false},
	{"RSA-PSK-NULL-SHA256", 0x00B8, sslKxRSAPSK, sslAuRSA, sslEncNULL, sslMacSHA256, sslTLS1, false},
	{"RSA-PSK-NULL-SHA384", 0x00B9, sslKxRSAPSK, sslAuRSA, sslEncNULL, sslMacSHA384, sslTLS1, false},
	{"CAMELLIA128-SHA256", 0x00BA, sslKxRSA, sslAuRSA, sslEncCAMELLIA128, sslMacSHA256, sslTLS12, false},
	{"DHE-DSS-CAMELLIA128-SHA256", 0x00BD, sslKxDHE, sslAuDSS, sslEncCAMELLIA128, sslMacSHA256, sslTLS12, false},
	{"DHE-RSA-CAMELLIA128-SHA256", 0x00BE, sslKxDHE, sslAuRSA, sslEncCAMELLIA128, sslMacSHA256, sslTLS12, false},
	{"ADH-CAMELLIA128-SHA256", 0x00BF, sslKxDHE, sslAuNULL, sslEncCAMELLIA128, sslMacSHA256, sslTLS12, false},
	{"CAMELLIA256-SHA256", 0x00C0, sslKxRSA, sslAuRSA, sslEncCAMELLIA256, sslMacSHA256, sslTLS12, false},
	{"DHE-DSS-CAMELLIA256-SHA256", 0x00C3, sslKxDHE, sslAuDSS, sslEncCAMELLIA256, sslMacSHA256, sslTLS12, false},
	{"DHE-RSA-CAMELLIA256-SHA256", 0x00C4, sslKxDHE, sslAuRSA, sslEncCAMELLIA256, sslMacSHA256, sslTLS12, false},
	{"ADH-CAMELLIA256-SHA256", 0x00C5, sslKxDHE, sslAuNULL, sslEncCAMELLIA256, sslMacSHA256, sslTLS12, false},
	{"ECDHE-ECDSA-NULL-SHA", 0xC006, sslKxECDHE, sslAuECDSA, sslEncNULL, sslMacSHA1, sslTLS1, false},
	{"ECDHE-ECDSA-RC4-SHA", 0xC007, sslKxECDHE, sslAuECDSA, sslEncRC4, sslMacSHA1, sslTLS1, false},
	{"ECDHE-ECDSA-DES-CBC3-SHA", 0xC008, sslKxECDHE, sslAuECDSA, sslEnc3DES, sslMacSHA1, sslTLS1, false},
	{"ECDHE-ECDSA-AES128-SHA", 0xC009, sslKxECDHE, sslAuECDSA, sslEncAES128, sslMacSHA1, sslTLS1, false},
	{"ECDHE-ECDSA-AES256-SHA", 0xC00A, sslKxECDHE, sslAuECDSA, sslEncAES256, sslMacSHA1, sslTLS1, false},
	{"ECDHE-RSA-NULL-SHA", 0xC010, sslKxECDHE, sslAuRSA, sslEncNULL, sslMacSHA1, sslTLS1, false},
	{"ECDHE-RSA-RC4-SHA", 0xC011, sslKxECDHE, sslAuRSA, sslEncRC4, sslMacSHA1, sslTLS1, false},
	{"ECDHE-RSA-DES-CBC3-SHA", 0xC012, sslKxECDHE, sslAuRSA, sslEnc3DES, sslMacSHA1, sslTLS1, false},
	{"ECDHE-RSA-AES128-SHA", 0xC013, sslKxECDHE, sslAuRSA, sslEncAES128, sslMacSHA1, sslTLS1, false},
	{"ECDHE-RSA-AES256-SHA", 0xC014, sslKxECDHE, sslAuRSA, sslEncAES256, sslMacSHA1, sslTLS1, false},
	{"AECDH-NULL-SHA", 0xC015, sslKxECDHE, sslAuNULL, sslEncNULL, sslMacSHA1, sslTLS1, false},
	{"AECDH-RC4-SHA", 0xC016, sslKxECDHE, sslAuNULL, sslEncRC4, sslMacSHA1, sslTLS1, false},
	{"AECDH-DES-CBC3-SHA", 0xC017, sslKxECDHE, sslAuNULL, sslEnc3DES, sslMacSHA1, sslTLS1, false},
	{"AECDH-AES128-SHA", 0xC018, sslKxECDHE, sslAuNULL, sslEncAES128, sslMacSHA1, sslTLS1, false},
	{"AECDH-AES256-SHA", 0xC019, sslKxECDHE, sslAuNULL, sslEncAES256, sslMacSHA1, sslTLS1, false},
	{"SRP-AES-128-CBC-SHA", 0xC01D, sslKxSRP, sslAuSRP, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"SRP-RSA-AES-128-CBC-SHA", 0xC01E, sslKxSRP, sslAuRSA, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"SRP-DSS-AES-128-CBC-SHA", 0xC01F, sslKxSRP, sslAuDSS, sslEncAES128, sslMacSHA1, sslSSL3, false},
	{"SRP-AES-256-CBC-SHA", 0xC020, sslKxSRP, sslAuSRP, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"SRP-RSA-AES-256-CBC-SHA", 0xC021, sslKxSRP, sslAuRSA, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"SRP-DSS-AES-256-CBC-SHA", 0xC022, sslKxSRP, sslAuDSS, sslEncAES256, sslMacSHA1, sslSSL3, false},
	{"ECDHE-ECDSA-AES128-SHA256", 0xC023, sslKxECDHE, sslAuECDSA, sslEncAES128, sslMacSHA256, sslTLS12, false},
	{"ECDHE-ECDSA-AES256-SHA384", 0xC024, sslKxECDHE, sslAuECDSA, sslEncAES256, sslMacSHA384, sslTLS12, false},
	{"ECDHE-RSA-AES128-SHA256", 0xC027, sslKxECDHE, sslAuRSA, sslEncAES128, sslMacSHA256, sslTLS12, false},
	{"ECDHE-RSA-AES256-SHA384", 0xC028, sslKxECDHE, sslAuRSA, sslEncAES256, sslMacSHA384, sslTLS12, false},
	{"ECDHE-ECDSA-AES128-GCM-SHA256", 0xC02B, sslKxECDHE, sslAuECDSA, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-AES256-GCM-SHA384", 0xC02C, sslKxECDHE, sslAuECDSA, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-RSA-AES128-GCM-SHA256", 0xC02F, sslKxECDHE, sslAuRSA, sslEncAESGCM128, sslMacAEAD, sslTLS12, false},
	{"ECDHE-RSA-AES256-GCM-SHA384", 0xC030, sslKxECDHE, sslAuRSA, sslEncAESGCM256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-PSK-AES128-CBC-SHA", 0xC035, sslKxECDHEPSK, sslAuPSK, sslEncAES128, sslMacSHA1, sslTLS1, false},
	{"ECDHE-PSK-AES256-CBC-SHA", 0xC036, sslKxECDHEPSK, sslAuPSK, sslEncAES256, sslMacSHA1, sslTLS1, false},
	{"ECDHE-PSK-AES128-CBC-SHA256", 0xC037, sslKxECDHEPSK, sslAuPSK, sslEncAES128, sslMacSHA256, sslTLS1, false},
	{"ECDHE-PSK-AES256-CBC-SHA384", 0xC038, sslKxECDHEPSK, sslAuPSK, sslEncAES256, sslMacSHA384, sslTLS1, false},
	{"ECDHE-PSK-NULL-SHA", 0xC039, sslKxECDHEPSK, sslAuPSK, sslEncNULL, sslMacSHA1, sslTLS1, false},
	{"ECDHE-PSK-NULL-SHA256", 0xC03A, sslKxECDHEPSK, sslAuPSK, sslEncNULL, sslMacSHA256, sslTLS1, false},
	{"ECDHE-PSK-NULL-SHA384", 0xC03B, sslKxECDHEPSK, sslAuPSK, sslEncNULL, sslMacSHA384, sslTLS1, false},
	{"ARIA128-GCM-SHA256", 0xC050, sslKxRSA, sslAuRSA, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"ARIA256-GCM-SHA384", 0xC051, sslKxRSA, sslAuRSA, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-ARIA128-GCM-SHA256", 0xC052, sslKxDHE, sslAuRSA, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-ARIA256-GCM-SHA384", 0xC053, sslKxDHE, sslAuRSA, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-DSS-ARIA128-GCM-SHA256", 0xC056, sslKxDHE, sslAuDSS, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-DSS-ARIA256-GCM-SHA384", 0xC057, sslKxDHE, sslAuDSS, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-ARIA128-GCM-SHA256", 0xC05C, sslKxECDHE, sslAuECDSA, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-ARIA256-GCM-SHA384", 0xC05D, sslKxECDHE, sslAuECDSA, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ARIA128-GCM-SHA256", 0xC060, sslKxECDHE, sslAuRSA, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ARIA256-GCM-SHA384", 0xC061, sslKxECDHE, sslAuRSA, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"PSK-ARIA128-GCM-SHA256", 0xC06A, sslKxPSK, sslAuPSK, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"PSK-ARIA256-GCM-SHA384", 0xC06B, sslKxPSK, sslAuPSK, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-ARIA128-GCM-SHA256", 0xC06C, sslKxDHEPSK, sslAuPSK, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-ARIA256-GCM-SHA384", 0xC06D, sslKxDHEPSK, sslAuPSK, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"RSA-PSK-ARIA128-GCM-SHA256", 0xC06E, sslKxRSAPSK, sslAuRSA, sslEncARIAGCM128, sslMacAEAD, sslTLS12, false},
	{"RSA-PSK-ARIA256-GCM-SHA384", 0xC06F, sslKxRSAPSK, sslAuRSA, sslEncARIAGCM256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-CAMELLIA128-SHA256", 0xC072, sslKxECDHE, sslAuECDSA, sslEncCAMELLIA128, sslMacSHA256, sslTLS12, false},
	{"ECDHE-ECDSA-CAMELLIA256-SHA384", 0xC073, sslKxECDHE, sslAuECDSA, sslEncCAMELLIA256, sslMacSHA384, sslTLS12, false},
	{"ECDHE-RSA-CAMELLIA128-SHA256", 0xC076, sslKxECDHE, sslAuRSA, sslEncCAMELLIA128, sslMacSHA256, sslTLS12, false},
	{"ECDHE-RSA-CAMELLIA256-SHA384", 0xC077, sslKxECDHE, sslAuRSA, sslEncCAMELLIA256, sslMacSHA384, sslTLS12, false},
	{"PSK-CAMELLIA128-SHA256", 0xC094, sslKxPSK, sslAuPSK, sslEncCAMELLIA128, sslMacSHA256, sslTLS1, false},
	{"PSK-CAMELLIA256-SHA384", 0xC095, sslKxPSK, sslAuPSK, sslEncCAMELLIA256, sslMacSHA384, sslTLS1, false},
	{"DHE-PSK-CAMELLIA128-SHA256", 0xC096, sslKxDHEPSK, sslAuPSK, sslEncCAMELLIA128, sslMacSHA256, sslTLS1, false},
	{"DHE-PSK-CAMELLIA256-SHA384", 0xC097, sslKxDHEPSK, sslAuPSK, sslEncCAMELLIA256, sslMacSHA384, sslTLS1, false},
	{"RSA-PSK-CAMELLIA128-SHA256", 0xC098, sslKxRSAPSK, sslAuRSA, sslEncCAMELLIA128, sslMacSHA256, sslTLS1, false},
	{"RSA-PSK-CAMELLIA256-SHA384", 0xC099, sslKxRSAPSK, sslAuRSA, sslEncCAMELLIA256, sslMacSHA384, sslTLS1, false},
	{"ECDHE-PSK-CAMELLIA128-SHA256", 0xC09A, sslKxECDHEPSK, sslAuPSK, sslEncCAMELLIA128, sslMacSHA256, sslTLS1, false},
	{"ECDHE-PSK-CAMELLIA256-SHA384", 0xC09B, sslKxECDHEPSK, sslAuPSK, sslEncCAMELLIA256, sslMacSHA384, sslTLS1, false},
	{"AES128-CCM", 0xC09C, sslKxRSA, sslAuRSA, sslEncAESCCM128, sslMacAEAD, sslTLS12, false},
	{"AES256-CCM", 0xC09D, sslKxRSA, sslAuRSA, sslEncAESCCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-AES128-CCM", 0xC09E, sslKxDHE, sslAuRSA, sslEncAESCCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-AES256-CCM", 0xC09F, sslKxDHE, sslAuRSA, sslEncAESCCM256, sslMacAEAD, sslTLS12, false},
	{"AES128-CCM8", 0xC0A0, sslKxRSA, sslAuRSA, sslEncAESCCM8128, sslMacAEAD, sslTLS12, false},
	{"AES256-CCM8", 0xC0A1, sslKxRSA, sslAuRSA, sslEncAESCCM8256, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-AES128-CCM8", 0xC0A2, sslKxDHE, sslAuRSA, sslEncAESCCM8128, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-AES256-CCM8", 0xC0A3, sslKxDHE, sslAuRSA, sslEncAESCCM8256, sslMacAEAD, sslTLS12, false},
	{"PSK-AES128-CCM", 0xC0A4, sslKxPSK, sslAuPSK, sslEncAESCCM128, sslMacAEAD, sslTLS12, false},
	{"PSK-AES256-CCM", 0xC0A5, sslKxPSK, sslAuPSK, sslEncAESCCM256, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-AES128-CCM", 0xC0A6, sslKxDHEPSK, sslAuPSK, sslEncAESCCM128, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-AES256-CCM", 0xC0A7, sslKxDHEPSK, sslAuPSK, sslEncAESCCM256, sslMacAEAD, sslTLS12, false},
	{"PSK-AES128-CCM8", 0xC0A8, sslKxPSK, sslAuPSK, sslEncAESCCM8128, sslMacAEAD, sslTLS12, false},
	{"PSK-AES256-CCM8", 0xC0A9, sslKxPSK, sslAuPSK, sslEncAESCCM8256, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-AES128-CCM8", 0xC0AA, sslKxDHEPSK, sslAuPSK, sslEncAESCCM8128, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-AES256-CCM8", 0xC0AB, sslKxDHEPSK, sslAuPSK, sslEncAESCCM8256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-AES128-CCM", 0xC0AC, sslKxECDHE, sslAuECDSA, sslEncAESCCM128, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-AES256-CCM", 0xC0AD, sslKxECDHE, sslAuECDSA, sslEncAESCCM256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-AES128-CCM8", 0xC0AE, sslKxECDHE, sslAuECDSA, sslEncAESCCM8128, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-AES256-CCM8", 0xC0AF, sslKxECDHE, sslAuECDSA, sslEncAESCCM8256, sslMacAEAD, sslTLS12, false},
	{"ECDHE-RSA-CHACHA20-POLY1305", 0xCCA8, sslKxECDHE, sslAuRSA, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
	{"ECDHE-ECDSA-CHACHA20-POLY1305", 0xCCA9, sslKxECDHE, sslAuECDSA, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
	{"DHE-RSA-CHACHA20-POLY1305", 0xCCAA, sslKxDHE, sslAuRSA, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
	{"PSK-CHACHA20-POLY1305", 0xCCAB, sslKxPSK, sslAuPSK, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
	{"ECDHE-PSK-CHACHA20-POLY1305", 0xCCAC, sslKxECDHEPSK, sslAuPSK, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
	{"DHE-PSK-CHACHA20-POLY1305", 0xCCAD, sslKxDHEPSK, sslAuPSK, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
	{"RSA-PSK-CHACHA20-POLY1305", 0xCCAE, sslKxRSAPSK, sslAuRSA, sslEncCHACHA20, sslMacAEAD, sslTLS12, false},
}

// sslSuiteRenames maps OpenSSL 1.1+ names of old suites to the 1.0.x names
// the table uses, so either spelling works.
var sslSuiteRenames = map[string]string{
	"DHE-DSS-DES-CBC3-SHA": "EDH-DSS-DES-CBC3-SHA",
	"DHE-RSA-DES-CBC3-SHA": "EDH-RSA-DES-CBC3-SHA",
	"DHE-DSS-DES-CBC-SHA":  "EDH-DSS-DES-CBC-SHA",
	"DHE-RSA-DES-CBC-SHA":  "EDH-RSA-DES-CBC-SHA",
}

// sslSuitesByName indexes sslSuiteTable by OpenSSL name.
var sslSuitesByName = func() map[string]*sslSuite {
	m := make(map[string]*sslSuite, len(sslSuiteTable)+len(sslSuiteRenames))
	for i := range sslSuiteTable {
		m[sslSuiteTable[i].name] = &sslSuiteTable[i]
	}
	for newName, oldName := range sslSuiteRenames {
		m[newName] = m[oldName]
	}
	return m
}()

// sslSelector is what one element of a cipher string selects: an alias, a
// suite named on its own, or several of them joined by "+". Zero fields do
// not constrain.
type sslSelector struct {
	named            *sslSuite // set when a suite is named on its own
	kx, au, enc, mac sslBits
	class            sslBits
	notDefault       bool
	proto            uint16
}

// sslCipherAliases are OpenSSL's aliases (ciphers(1)), plus EXP/EXPORT from
// OpenSSL 1.0.x. SSLv2 and DEFAULT are handled by the parser.
var sslCipherAliases = map[string]sslSelector{
	"ALL":                 {enc: ^sslEncNULL},
	"COMPLEMENTOFALL":     {enc: sslEncNULL},
	"COMPLEMENTOFDEFAULT": {enc: ^sslEncNULL, notDefault: true},
	"HIGH":                {class: sslHigh},
	"MEDIUM":              {class: sslMedium},
	"LOW":                 {class: sslLow},
	"EXP":                 {class: sslExport},
	"EXPORT":              {class: sslExport},
	"EXPORT40":            {class: sslExport},

	"kRSA":      {kx: sslKxRSA},
	"RSA":       {kx: sslKxRSA},
	"kDHE":      {kx: sslKxDHE},
	"kEDH":      {kx: sslKxDHE},
	"DH":        {kx: sslKxDHE},
	"DHE":       {kx: sslKxDHE, au: ^sslAuNULL},
	"EDH":       {kx: sslKxDHE, au: ^sslAuNULL},
	"ADH":       {kx: sslKxDHE, au: sslAuNULL},
	"kECDHE":    {kx: sslKxECDHE},
	"kEECDH":    {kx: sslKxECDHE},
	"ECDH":      {kx: sslKxECDHE},
	"ECDHE":     {kx: sslKxECDHE, au: ^sslAuNULL},
	"EECDH":     {kx: sslKxECDHE, au: ^sslAuNULL},
	"AECDH":     {kx: sslKxECDHE, au: sslAuNULL},
	"PSK":       {kx: sslKxPSK | sslKxRSAPSK | sslKxDHEPSK | sslKxECDHEPSK},
	"kPSK":      {kx: sslKxPSK},
	"kRSAPSK":   {kx: sslKxRSAPSK},
	"kDHEPSK":   {kx: sslKxDHEPSK},
	"kECDHEPSK": {kx: sslKxECDHEPSK},
	"SRP":       {kx: sslKxSRP},
	"kSRP":      {kx: sslKxSRP},

	"aRSA":   {au: sslAuRSA},
	"aDSS":   {au: sslAuDSS},
	"DSS":    {au: sslAuDSS},
	"aECDSA": {au: sslAuECDSA},
	"ECDSA":  {au: sslAuECDSA},
	"aNULL":  {au: sslAuNULL},
	"aPSK":   {au: sslAuPSK},
	"aSRP":   {au: sslAuSRP},

	"eNULL":       {enc: sslEncNULL},
	"NULL":        {enc: sslEncNULL},
	"AES":         {enc: sslEncAES},
	"AES128":      {enc: sslEncAES128 | sslEncAESGCM128 | sslEncAESCCM128 | sslEncAESCCM8128},
	"AES256":      {enc: sslEncAES256 | sslEncAESGCM256 | sslEncAESCCM256 | sslEncAESCCM8256},
	"AESGCM":      {enc: sslEncAESGCM},
	"AESCCM":      {enc: sslEncAESCCM},
	"AESCCM8":     {enc: sslEncAESCCM8},
	"CHACHA20":    {enc: sslEncCHACHA20},
	"CAMELLIA":    {enc: sslEncCAMELLIA},
	"CAMELLIA128": {enc: sslEncCAMELLIA128},
	"CAMELLIA256": {enc: sslEncCAMELLIA256},
	"ARIA":        {enc: sslEncARIA},
	"ARIAGCM":     {enc: sslEncARIA},
	"ARIA128":     {enc: sslEncARIAGCM128},
	"ARIA256":     {enc: sslEncARIAGCM256},
	"3DES":        {enc: sslEnc3DES},
	"DES":         {enc: sslEncDES},
	"RC4":         {enc: sslEncRC4},
	"RC2":         {enc: sslEncRC2},
	"IDEA":        {enc: sslEncIDEA},
	"SEED":        {enc: sslEncSEED},

	"MD5":    {mac: sslMacMD5},
	"SHA1":   {mac: sslMacSHA1},
	"SHA":    {mac: sslMacSHA1},
	"SHA256": {mac: sslMacSHA256},
	"SHA384": {mac: sslMacSHA384},

	"SSLv3":   {proto: sslSSL3},
	"TLSv1":   {proto: sslTLS1},
	"TLSv1.0": {proto: sslTLS1},
	"TLSv1.2": {proto: sslTLS12},
}

// sslDefaultCipherString is what DEFAULT expands to (OpenSSL 3's
// OSSL_default_cipher_list).
const sslDefaultCipherString = "ALL:!COMPLEMENTOFDEFAULT:!eNULL"

// sslTLS13Names are TLS 1.3 suite names that people put into ssl_ciphers.
var sslTLS13Names = []string{
	"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
	"TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256",
}

// match reports whether the selector selects s (ssl_cipher_apply_rule's test).
func (sel sslSelector) match(s *sslSuite) bool {
	switch {
	case sel.named != nil && sel.named != s,
		sel.kx != 0 && sel.kx&s.kx == 0,
		sel.au != 0 && sel.au&s.au == 0,
		sel.enc != 0 && sel.enc&s.enc == 0,
		sel.mac != 0 && sel.mac&s.mac == 0,
		sel.class != 0 && sel.class&s.class() == 0,
		sel.notDefault && !s.notDefault(),
		sel.proto != 0 && sel.proto != s.proto:
		return false
	}
	return true
}

// and narrows sel by o, as OpenSSL does for "A+B". It reports false when
// the two cannot both hold, in which case OpenSSL ignores the element.
func (sel *sslSelector) and(o sslSelector) bool {
	for _, f := range []struct {
		dst *sslBits
		src sslBits
	}{{&sel.kx, o.kx}, {&sel.au, o.au}, {&sel.enc, o.enc}, {&sel.mac, o.mac}, {&sel.class, o.class}} {
		switch {
		case f.src == 0:
		case *f.dst == 0:
			*f.dst = f.src
		default:
			*f.dst &= f.src
			if *f.dst == 0 {
				return false
			}
		}
	}
	sel.notDefault = sel.notDefault || o.notDefault
	if o.named != nil {
		// A named suite's own protocol is not part of the pattern (OpenSSL).
		sel.named = o.named
		return true
	}
	if o.proto != 0 {
		if sel.proto != 0 && sel.proto != o.proto {
			return false
		}
		sel.proto = o.proto
	}
	return true
}

// namedSelector selects one suite and carries its algorithms, so that
// "AES128-SHA+ECDHE" selects nothing, as in OpenSSL.
func namedSelector(s *sslSuite) sslSelector {
	return sslSelector{named: s, kx: s.kx, au: s.au, enc: s.enc, mac: s.mac, class: s.class()}
}

// sslOp is what a rule does to the suites it selects.
type sslOp int

const (
	sslAdd  sslOp = iota // plain: append inactive matches to the end, active
	sslDel               // "-": deactivate, moving them to the front (a later add puts them back in this order)
	sslOrd               // "+": move active matches to the end
	sslBump              // move active matches to the front (OpenSSL's own default ordering)
	sslKill              // "!": remove for good; no later rule brings them back
)

// sslCipherList is OpenSSL's working list: every suite not yet killed, in
// order, some active. The active ones, in order, are the result.
type sslCipherList struct {
	order  []*sslSuite
	active map[*sslSuite]bool
}

// apply runs one rule over the list, keeping relative order within the
// moved and the unmoved suites (what OpenSSL's linked-list walk does).
func (l *sslCipherList) apply(op sslOp, match func(*sslSuite) bool) {
	var moved, rest []*sslSuite
	for _, s := range l.order {
		hit := match(s)
		switch op {
		case sslAdd:
			hit = hit && !l.active[s]
		case sslDel, sslOrd, sslBump:
			hit = hit && l.active[s]
		}
		if hit {
			moved = append(moved, s)
		} else {
			rest = append(rest, s)
		}
	}
	for _, s := range moved {
		l.active[s] = op == sslAdd || op == sslOrd || op == sslBump
	}
	switch op {
	case sslAdd, sslOrd:
		l.order = append(rest, moved...)
	case sslDel, sslBump:
		l.order = append(moved, rest...)
	case sslKill:
		l.order = rest
	}
}

// sortByStrength moves active suites to the end strongest first, keeping
// the order among equals (@STRENGTH, ssl_cipher_strength_sort).
func (l *sslCipherList) sortByStrength() {
	var strengths []int
	for _, s := range l.order {
		if l.active[s] && !slices.Contains(strengths, s.bits()) {
			strengths = append(strengths, s.bits())
		}
	}
	slices.Sort(strengths)
	slices.Reverse(strengths)
	for _, b := range strengths {
		l.apply(sslOrd, func(s *sslSuite) bool { return s.bits() == b })
	}
}

// selected returns the active suites in order.
func (l *sslCipherList) selected() []*sslSuite {
	var out []*sslSuite
	for _, s := range l.order {
		if l.active[s] {
			out = append(out, s)
		}
	}
	return out
}

// newSSLCipherList builds OpenSSL 3's starting order, all inactive: the
// order in which a rule like ALL or HIGH adds suites. OpenSSL walks its
// suite table backwards, hence the descending code points; the rules below
// are ssl_create_cipher_list's.
func newSSLCipherList() *sslCipherList {
	l := &sslCipherList{active: make(map[*sslSuite]bool, len(sslSuiteTable))}
	for i := len(sslSuiteTable) - 1; i >= 0; i-- {
		l.order = append(l.order, &sslSuiteTable[i])
	}
	sel := func(s sslSelector) func(*sslSuite) bool { return s.match }
	all := sel(sslSelector{})
	fs := sslKxDHE | sslKxECDHE
	// Prefer ECDHE, ECDSA before RSA, then AES-GCM, ChaCha20, other AES.
	l.apply(sslAdd, sel(sslSelector{kx: sslKxECDHE, au: sslAuECDSA}))
	l.apply(sslAdd, sel(sslSelector{kx: sslKxECDHE}))
	l.apply(sslDel, sel(sslSelector{kx: sslKxECDHE}))
	l.apply(sslAdd, sel(sslSelector{enc: sslEncAESGCM}))
	l.apply(sslAdd, sel(sslSelector{enc: sslEncCHACHA20}))
	l.apply(sslAdd, sel(sslSelector{enc: sslEncAES &^ sslEncAESGCM}))
	l.apply(sslAdd, all)
	// Weak or unauthenticated last.
	l.apply(sslOrd, sel(sslSelector{mac: sslMacMD5}))
	l.apply(sslOrd, sel(sslSelector{au: sslAuNULL}))
	l.apply(sslOrd, sel(sslSelector{kx: sslKxRSA}))
	l.apply(sslOrd, sel(sslSelector{kx: sslKxPSK}))
	l.apply(sslOrd, sel(sslSelector{enc: sslEncRC4}))
	l.sortByStrength()
	// Then (EC)DHE+AEAD > (EC)DHE > other AEAD > rest, TLS 1.2 first in each.
	l.apply(sslBump, sel(sslSelector{proto: sslTLS12}))
	l.apply(sslBump, sel(sslSelector{mac: sslMacAEAD}))
	l.apply(sslBump, sel(sslSelector{kx: fs}))
	l.apply(sslBump, sel(sslSelector{kx: fs, mac: sslMacAEAD}))
	l.apply(sslDel, all)
	return l
}

// sslCipherParse is the state of interpreting one cipher string.
type sslCipherParse struct {
	list     *sslCipherList
	named    map[*sslSuite]bool // suites added under their own name
	secLevel int                // last @SECLEVEL=n; 0 when absent
	warnings []string
}

// isSSLCipherSep reports OpenSSL's element separators.
func isSSLCipherSep(c byte) bool {
	return c == ':' || c == ',' || c == ' ' || c == ';'
}

// isSSLCipherWordByte reports the bytes OpenSSL allows in a name.
func isSSLCipherWordByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '='
}

// sslCipherWord returns the name starting at s[i] and the index after it.
func sslCipherWord(s string, i int) (string, int) {
	j := i
	for j < len(s) && isSSLCipherWordByte(s[j]) {
		j++
	}
	return s[i:j], j
}

// sslCipherSyntaxError is OpenSSL's "invalid command", with a position.
func sslCipherSyntaxError(s string, i int) error {
	if i >= len(s) {
		return fmt.Errorf("conf: ssl_ciphers %q: a name is missing at the end", s)
	}
	return fmt.Errorf("conf: ssl_ciphers %q: unexpected %q at offset %d", s, s[i], i)
}

// run interprets rules the way ssl_cipher_process_rulestr does: a prefix
// (none, "-", "+", "!" or "@") and names joined by "+"; after a known name
// the next element may start right away, which is why "!kEDH!ADH" is two
// elements, while an unknown name makes the rest up to a separator ignored.
func (p *sslCipherParse) run(rules string) error {
	i := 0
	for i < len(rules) {
		from := i
		op, special := sslAdd, false
		switch rules[i] {
		case '-':
			op = sslDel
		case '+':
			op = sslOrd
		case '!':
			op = sslKill
		case '@':
			special = true
		default:
			if isSSLCipherSep(rules[i]) {
				i++
				continue
			}
			i-- // no prefix to skip
		}
		i++
		var err error
		if special {
			i, err = p.command(rules, i)
		} else {
			i, err = p.element(rules, from, i, op)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// command runs "@STRENGTH" or "@SECLEVEL=n" at rules[i:] and skips to the
// next separator.
func (p *sslCipherParse) command(rules string, i int) (int, error) {
	word, j := sslCipherWord(rules, i)
	switch {
	case word == "STRENGTH":
		p.list.sortByStrength()
	case len(word) == len("SECLEVEL=n") && strings.HasPrefix(word, "SECLEVEL=") &&
		'0' <= word[9] && word[9] <= '5':
		p.secLevel = int(word[9] - '0')
	default:
		return j, fmt.Errorf("conf: ssl_ciphers %q: unknown command \"@%s\"", rules, word)
	}
	return sslSkipElement(rules, j), nil
}

// sslSkipElement returns the index of the next separator at or after i.
func sslSkipElement(rules string, i int) int {
	for i < len(rules) && !isSSLCipherSep(rules[i]) {
		i++
	}
	return i
}

// element reads names joined by "+" at rules[i:] and applies op to what
// they select together; from is where the element's prefix starts.
func (p *sslCipherParse) element(rules string, from, i int, op sslOp) (int, error) {
	var sel sslSelector
	for {
		word, j := sslCipherWord(rules, i)
		if word == "" {
			return j, sslCipherSyntaxError(rules, j)
		}
		next, known := p.lookup(word)
		if !known {
			end := sslSkipElement(rules, j)
			p.warnUnknown(word, rules[from:end], op)
			return end, nil
		}
		if !sel.and(next) {
			end := sslSkipElement(rules, j)
			p.warnf("ssl_ciphers: %q selects nothing: its parts exclude each other", rules[from:end])
			return end, nil
		}
		if j < len(rules) && rules[j] == '+' {
			i = j + 1
			continue
		}
		p.apply(op, sel)
		return j, nil
	}
}

// lookup finds an alias or a suite name.
func (p *sslCipherParse) lookup(word string) (sslSelector, bool) {
	if sel, ok := sslCipherAliases[word]; ok {
		return sel, true
	}
	if s, ok := sslSuitesByName[word]; ok {
		return namedSelector(s), true
	}
	return sslSelector{}, false
}

// apply runs one parsed element and remembers suites added by name.
func (p *sslCipherParse) apply(op sslOp, sel sslSelector) {
	if op == sslAdd && sel.named != nil && sel.match(sel.named) {
		p.named[sel.named] = true
	}
	p.list.apply(op, sel.match)
}

// warnUnknown explains a name OpenSSL would skip without a word.
func (p *sslCipherParse) warnUnknown(word, element string, op sslOp) {
	switch {
	case word == "SSLv2":
		if op != sslKill && op != sslDel {
			p.warnf("ssl_ciphers: \"SSLv2\" selects nothing: Go's crypto/tls (like OpenSSL 1.1+) has no SSLv2 suites")
		}
	case word == "DEFAULT":
		p.warnf("ssl_ciphers: \"DEFAULT\" is only understood at the start of the string (as in OpenSSL); %q is ignored", element)
	case slices.Contains(sslTLS13Names, word):
		p.warnf("ssl_ciphers: %q is a TLS 1.3 suite, which cannot be configured; Go's crypto/tls always uses its own TLS 1.3 suites", word)
	default:
		p.warnf("ssl_ciphers: unknown cipher or alias %q, so %q is ignored", word, element)
	}
}

// warnf adds a warning once.
func (p *sslCipherParse) warnf(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if !slices.Contains(p.warnings, w) {
		p.warnings = append(p.warnings, w)
	}
}

// sslSecLevelAllows applies OpenSSL's security level to a suite: minimum
// strength 80/112/128/192/256 bits for levels 1-5, no RC4 from level 2,
// forward secrecy from level 3.
func sslSecLevelAllows(level int, s *sslSuite) bool {
	minBits := [...]int{0, 80, 112, 128, 192, 256}[level]
	switch {
	case s.bits() < minBits:
		return false
	case level >= 2 && s.enc == sslEncRC4:
		return false
	case level >= 3 && s.kx&(sslKxDHE|sslKxECDHE|sslKxDHEPSK|sslKxECDHEPSK) == 0:
		return false
	}
	return true
}

// sslOpenSSLOrder interprets s as OpenSSL would and returns the selected
// suites in order, the suites named on their own, and warnings about the
// string itself.
func sslOpenSSLOrder(s string) ([]*sslSuite, map[*sslSuite]bool, []string, error) {
	p := &sslCipherParse{list: newSSLCipherList(), named: map[*sslSuite]bool{}}
	rules := s
	// OpenSSL expands DEFAULT only at the very start.
	if strings.HasPrefix(rules, "DEFAULT") {
		if err := p.run(sslDefaultCipherString); err != nil {
			return nil, nil, nil, err
		}
		rules = strings.TrimPrefix(rules[len("DEFAULT"):], ":")
	}
	if err := p.run(rules); err != nil {
		return nil, nil, nil, err
	}
	var out []*sslSuite
	for _, suite := range p.list.selected() {
		if sslSecLevelAllows(p.secLevel, suite) {
			out = append(out, suite)
		}
	}
	return out, p.named, p.warnings, nil
}

// sslGoSuites are the suites Go's crypto/tls implements, true for those it
// calls insecure (RC4, 3DES, RSA key exchange, CBC-SHA256), which edge
// enables only when they are named on their own.
var sslGoSuites = func() map[uint16]bool {
	m := map[uint16]bool{}
	for _, c := range tls.CipherSuites() {
		m[c.ID] = false
	}
	for _, c := range tls.InsecureCipherSuites() {
		m[c.ID] = true
	}
	return m
}()

// ParseSSLCiphers interprets an OpenSSL cipher list string (the argument of
// ssl_ciphers): OpenSSL's grammar and aliases, its default order, "!", "-",
// "+", "A+B", @STRENGTH and @SECLEVEL=n. Of the suites that result it keeps
// those Go's crypto/tls implements and does not call insecure, plus
// insecure ones named on their own (with a warning); every kind of suite it
// leaves out gets a warning. It fails when the string is malformed or when
// nothing Go supports remains; the caller reports that as [emerg].
func ParseSSLCiphers(s string) (SSLCipherResult, error) {
	suites, named, warnings, err := sslOpenSSLOrder(s)
	if err != nil {
		return SSLCipherResult{}, err
	}
	var res SSLCipherResult
	drops := &sslDrops{}
	for _, suite := range suites {
		insecure, ok := sslGoSuites[suite.id]
		switch {
		case ok && !insecure:
			res.Suites = append(res.Suites, suite.id)
		case ok && named[suite]:
			res.Suites = append(res.Suites, suite.id)
			warnings = append(warnings, fmt.Sprintf("ssl_ciphers: %q is insecure and off by default in Go's crypto/tls; edge enables it because it is named explicitly", suite.name))
		default:
			drops.add(suite, ok)
		}
	}
	res.Warnings = append(warnings, drops.warnings()...)
	switch {
	case len(suites) == 0:
		return res, fmt.Errorf("conf: ssl_ciphers %q selects no cipher suites", s)
	case len(res.Suites) == 0:
		return res, fmt.Errorf("conf: ssl_ciphers %q selects no cipher suite that Go's crypto/tls supports, only %s suites", s, drops.summary())
	}
	return res, nil
}

// sslDropKind is why a selected suite is not passed to Go.
type sslDropKind int

const (
	sslDropExport sslDropKind = iota
	sslDropNULL
	sslDropAnon
	sslDropDHE
	sslDropRC4
	sslDrop3DES
	sslDropDES
	sslDropRSA
	sslDropCBCSHA2
	sslDropOther
	sslDropKinds
)

// sslDropLabels name each kind briefly, for the error when nothing is left.
var sslDropLabels = [sslDropKinds]string{
	sslDropExport: "EXPORT", sslDropNULL: "eNULL", sslDropAnon: "aNULL", sslDropDHE: "DHE",
	sslDropRC4: "RC4", sslDrop3DES: "3DES", sslDropDES: "DES", sslDropRSA: "kRSA",
	sslDropCBCSHA2: "ECDHE AES-CBC-SHA256/384",
}

// sslDropMessages are the warnings, in the order they are given.
var sslDropMessages = [sslDropKinds]string{
	sslDropExport:  "ssl_ciphers: EXPORT suites (EXP) are not supported by Go's crypto/tls; they are left out",
	sslDropNULL:    "ssl_ciphers: NULL-encryption suites (eNULL) are not supported by Go's crypto/tls; they are left out",
	sslDropAnon:    "ssl_ciphers: anonymous suites (aNULL, ADH, AECDH) are not supported by Go's crypto/tls; they are left out",
	sslDropDHE:     "ssl_ciphers: DHE suites (kEDH) are not supported by Go's crypto/tls; ECDHE is used instead",
	sslDropRC4:     "ssl_ciphers: RC4 suites are broken (RFC 7465) and not enabled by edge; AES-GCM and ChaCha20-Poly1305 are used instead",
	sslDrop3DES:    "ssl_ciphers: 3DES suites are weak (SWEET32, CVE-2016-2183) and not enabled by edge; AES is used instead",
	sslDropDES:     "ssl_ciphers: single-DES suites (LOW) are not supported by Go's crypto/tls; they are left out",
	sslDropRSA:     "ssl_ciphers: RSA key exchange suites (kRSA) lack forward secrecy and are not enabled by edge; ECDHE is used instead (name one, e.g. AES128-GCM-SHA256, to force it)",
	sslDropCBCSHA2: "ssl_ciphers: ECDHE AES-CBC suites with SHA256/SHA384 are not enabled by edge (Go's crypto/tls lacks them or calls them insecure); ECDHE AES-GCM is used instead",
}

// sslOtherFeatureNames are the names of sslOtherFeatures, in order.
var sslOtherFeatureNames = [...]string{"PSK", "SRP", "CAMELLIA", "ARIA", "AESCCM", "IDEA", "SEED"}

// sslOtherFeatures name suites Go does not implement at all, for the
// sslDropOther warning, in the order they are listed.
var sslOtherFeatures = [len(sslOtherFeatureNames)]struct {
	name string
	is   func(*sslSuite) bool
}{
	{"PSK", func(s *sslSuite) bool { return s.kx&(sslKxPSK|sslKxRSAPSK|sslKxDHEPSK|sslKxECDHEPSK) != 0 }},
	{"SRP", func(s *sslSuite) bool { return s.kx == sslKxSRP }},
	{"CAMELLIA", func(s *sslSuite) bool { return s.enc&sslEncCAMELLIA != 0 }},
	{"ARIA", func(s *sslSuite) bool { return s.enc&sslEncARIA != 0 }},
	{"AESCCM", func(s *sslSuite) bool { return s.enc&sslEncAESCCM != 0 }},
	{"IDEA", func(s *sslSuite) bool { return s.enc == sslEncIDEA }},
	{"SEED", func(s *sslSuite) bool { return s.enc == sslEncSEED }},
}

// sslDrops collects why suites were left out.
type sslDrops struct {
	kinds [sslDropKinds]bool
	other [len(sslOtherFeatureNames)]bool // by sslOtherFeatures index
}

// add records why s is left out; inGo says Go implements it (as insecure).
func (d *sslDrops) add(s *sslSuite, inGo bool) {
	kind := sslDropKindOf(s, inGo)
	d.kinds[kind] = true
	if kind != sslDropOther {
		return
	}
	for i, f := range sslOtherFeatures {
		d.other[i] = d.other[i] || f.is(s)
	}
}

// otherNames lists the sslOtherFeatures seen, in table order.
func (d *sslDrops) otherNames() []string {
	var names []string
	for i, seen := range d.other {
		if seen {
			names = append(names, sslOtherFeatures[i].name)
		}
	}
	return names
}

// summary names the kinds left out, as "DHE and RC4".
func (d *sslDrops) summary() string {
	var labels []string
	for kind, seen := range d.kinds {
		switch {
		case !seen:
		case sslDropKind(kind) == sslDropOther:
			labels = append(labels, d.otherNames()...)
		default:
			labels = append(labels, sslDropLabels[kind])
		}
	}
	return sslJoinAnd(labels)
}

// sslDropKindOf classifies a suite that is left out; the first reason wins,
// so EXP-EDH-RSA-DES-CBC-SHA counts as EXPORT, ADH-AES128-SHA as anonymous.
func sslDropKindOf(s *sslSuite, inGo bool) sslDropKind {
	switch {
	case s.export:
		return sslDropExport
	case s.enc == sslEncNULL:
		return sslDropNULL
	case s.au == sslAuNULL:
		return sslDropAnon
	case s.kx == sslKxDHE:
		return sslDropDHE
	case s.enc == sslEncRC4:
		return sslDropRC4
	case s.enc == sslEnc3DES:
		return sslDrop3DES
	case s.enc == sslEncDES:
		return sslDropDES
	case s.kx == sslKxRSA && (inGo || s.enc&sslEncAES != 0):
		return sslDropRSA
	case s.kx == sslKxECDHE && s.enc&(sslEncAES128|sslEncAES256) != 0:
		return sslDropCBCSHA2
	}
	return sslDropOther
}

// warnings returns one sentence per kind of suite left out, in a fixed order.
func (d *sslDrops) warnings() []string {
	var out []string
	for kind, seen := range d.kinds {
		switch {
		case !seen:
		case sslDropKind(kind) == sslDropOther:
			out = append(out, fmt.Sprintf("ssl_ciphers: %s suites are not implemented by Go's crypto/tls; they are left out", sslJoinAnd(d.otherNames())))
		default:
			out = append(out, sslDropMessages[kind])
		}
	}
	return out
}

// sslJoinAnd joins names as "A, B and C".
func sslJoinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// ParseSSLProtocols interprets ssl_protocols. Go's crypto/tls implements no
// SSLv2 or SSLv3, and edge does not offer TLS 1.0 or 1.1 (Go's servers
// refuse them by default; RFC 8996 deprecates them), so only TLSv1.2 and
// TLSv1.3 are accepted; anything else is an error. Names are
// case-insensitive, as in nginx. min and max are tls.VersionTLS12/13.
func ParseSSLProtocols(args []string) (min, max uint16, warnings []string, err error) {
	if len(args) == 0 {
		return 0, 0, nil, fmt.Errorf("conf: ssl_protocols needs at least one protocol")
	}
	var seen []uint16
	for _, a := range args {
		v, err := sslProtocolVersion(a)
		if err != nil {
			return 0, 0, nil, err
		}
		if slices.Contains(seen, v) {
			warnings = append(warnings, fmt.Sprintf("ssl_protocols: %q is listed twice", a))
			continue
		}
		seen = append(seen, v)
	}
	return slices.Min(seen), slices.Max(seen), warnings, nil
}

// sslProtocolVersion maps one ssl_protocols value to Go's version number.
func sslProtocolVersion(name string) (uint16, error) {
	switch strings.ToLower(name) {
	case "tlsv1.2":
		return tls.VersionTLS12, nil
	case "tlsv1.3":
		return tls.VersionTLS13, nil
	case "sslv2", "sslv3":
		return 0, fmt.Errorf("conf: ssl_protocols: %s is not implemented by Go's crypto/tls, so edge does not offer it; use TLSv1.2 and TLSv1.3", name)
	case "tlsv1", "tlsv1.1":
		return 0, fmt.Errorf("conf: ssl_protocols: %s is not offered by edge (Go's crypto/tls servers refuse it by default, RFC 8996 deprecates it); use TLSv1.2 and TLSv1.3", name)
	}
	return 0, fmt.Errorf("conf: ssl_protocols: invalid value %q", name)
}

// sslCurveNames maps ssl_ecdh_curve names (OpenSSL's, NIST's and SEC's
// spellings, compared case-insensitively as OpenSSL does) to Go's IDs.
var sslCurveNames = map[string]tls.CurveID{
	"x25519mlkem768":     tls.X25519MLKEM768,
	"secp256r1mlkem768":  tls.SecP256r1MLKEM768,
	"secp384r1mlkem1024": tls.SecP384r1MLKEM1024,
	"x25519":             tls.X25519,
	"prime256v1":         tls.CurveP256,
	"secp256r1":          tls.CurveP256,
	"p-256":              tls.CurveP256,
	"secp384r1":          tls.CurveP384,
	"p-384":              tls.CurveP384,
	"secp521r1":          tls.CurveP521,
	"p-521":              tls.CurveP521,
}

// ParseSSLCurves interprets ssl_ecdh_curve: "auto" gives nil, which means
// Go's default preference (hybrid post-quantum X25519MLKEM768 first, then
// X25519, P-256, ...); otherwise a colon-separated list in preference
// order. Unknown names, empty entries and repeats are errors.
func ParseSSLCurves(s string) ([]tls.CurveID, error) {
	if strings.EqualFold(s, "auto") {
		return nil, nil
	}
	var curves []tls.CurveID
	for _, name := range strings.Split(s, ":") {
		id, ok := sslCurveNames[strings.ToLower(name)]
		switch {
		case name == "":
			return nil, fmt.Errorf("conf: ssl_ecdh_curve %q: empty curve name", s)
		case !ok:
			return nil, fmt.Errorf("conf: ssl_ecdh_curve: unknown or unsupported curve %q (Go's crypto/tls offers X25519MLKEM768, SecP256r1MLKEM768, SecP384r1MLKEM1024, X25519, prime256v1, secp384r1, secp521r1)", name)
		case slices.Contains(curves, id):
			return nil, fmt.Errorf("conf: ssl_ecdh_curve: curve %q is listed twice", name)
		}
		curves = append(curves, id)
	}
	return curves, nil
}
