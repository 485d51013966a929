// This file holds the edge-only fpm_pool{} block: a php-fpm pool edge
// supervises, reports on and tunes. (Directives are added by the FPM pool
// work; the fields below are what the FastCGI handler relies on.)
package conf

// FPMPool is one fpm_pool block.
type FPMPool struct {
	Name string
	// Network and Address are where php-fpm listens ("unix" and a socket
	// path, or "tcp" and host:port); the FastCGI handler connects there.
	Network string
	Address string
	// MaxChildren is pm.max_children: the FastCGI client keeps fewer idle
	// connections than this (a kept connection pins a worker) and queues
	// requests beyond it.
	MaxChildren int
	// External is true for a pool edge only attaches to (not started by edge).
	External bool
	File     string
	Line     int
}

// findPool returns the fpm_pool with the given name, or nil.
func (c *compiler) findPool(name string) *FPMPool {
	for _, p := range c.fpmPools {
		if p.Name == name {
			return p
		}
	}
	return nil
}
