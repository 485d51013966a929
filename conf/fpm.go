// This file holds the edge-only fpm_pool{} block: a php-fpm pool edge
// supervises, reports on and tunes.
package conf

// FPMPool is one fpm_pool block.
type FPMPool struct {
	Name string
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
