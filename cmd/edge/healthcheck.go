// This file is "edge healthcheck": the check a container runs (Docker's
// exec-form HEALTHCHECK needs no shell, so the static image can use it).
// It reads the configuration as the server does (-c, -p, -g) and
// connects to every TCP address the server listens on, over loopback
// for a wildcard address; it succeeds when each one accepts. A
// configuration that does not load fails the check with edge's message.
package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

const healthcheckUsage = "usage: edge healthcheck [-c file] [-p prefix] [-g directives]\n"

func healthcheckCommand(args []string) int {
	a, err := parseFPMArgs(args)
	if err != nil || a.pool != "" || a.json || a.apply || a.force {
		fmt.Fprint(os.Stderr, healthcheckUsage)
		return 2
	}
	plan, err := load(&a.opts)
	if err != nil {
		emerg(err)
		return 1
	}
	if plan.HTTP == nil || len(plan.HTTP.Listens) == 0 {
		fmt.Fprintln(os.Stderr, "edge: healthcheck: the configuration listens nowhere")
		return 1
	}
	failed := 0
	for _, g := range plan.HTTP.Listens {
		addr := g.Listen.Addr
		if g.Listen.Network == "tcp" {
			addr = loopbackFor(addr)
		}
		c, err := net.DialTimeout(g.Listen.Network, addr, 3*time.Second)
		if err != nil {
			fmt.Fprintf(os.Stderr, "edge: healthcheck: %s: %v\n", g.Listen.Addr, err)
			failed++
			continue
		}
		c.Close()
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// loopbackFor turns a wildcard listen address into one to connect to.
func loopbackFor(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	switch host {
	case "", "*", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}
