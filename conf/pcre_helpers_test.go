// This file holds what the regexp tests share: a Regex forced onto the
// backtracking engine, which reads every pattern as PCRE2 does and so is
// what the other engines are checked against.
package conf

import (
	"testing"

	"github.com/dlclark/regexp2/v2"
)

// backtrackOnly compiles src for the backtracking engine alone.
func backtrackOnly(t testing.TB, src string, caseless bool) *Regex {
	t.Helper()
	pt, err := parsePCRE(src, caseless)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	bt, err := regexp2Compile(pt.netForm())
	if err != nil {
		t.Fatalf("%s: regexp2 rejects %s: %v", src, pt.netForm(), err)
	}
	return &Regex{Source: src, captures: pt.groups, bt: bt}
}

// regexp2Compile compiles a netForm as compilePCRE does.
func regexp2Compile(expr string) (*regexp2.Regexp, error) {
	bt, err := regexp2.Compile(expr)
	if err == nil {
		bt.MatchTimeout = matchBudget
	}
	return bt, err
}
