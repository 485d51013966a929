// Command hello is a minimal main package that binaries_test.go builds to
// exercise goBuild without depending on the state of ./cmd/edge.
package main

import "fmt"

func main() { fmt.Println("hello from testenv") }
