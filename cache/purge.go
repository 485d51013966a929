// This file holds purging, as ngx_cache_purge does it (nginx itself only
// purges in NGINX Plus): one key with all its Vary variants, every key
// with a prefix ("/blog/*"), or the whole zone.
package cache

import "strings"

// Purge removes the entries of a key, all its variants included, and
// returns how many files it removed (ngx_cache_purge answers 404 for 0).
// A key ending in "*" removes every key that starts with the text before
// it. Purge waits for the loader, so entries not yet indexed are found.
// A fill already running for a purged key still stores its response, as
// in nginx.
func (z *Zone) Purge(key string) int {
	if prefix, ok := strings.CutSuffix(key, "*"); ok {
		return z.purgeIf(func(n *node) bool { return strings.HasPrefix(n.key, prefix) })
	}
	h := HashKey(key)
	return z.purgeIf(func(n *node) bool { return n.hash == h || n.key == key })
}

// PurgeAll removes every entry of the zone.
func (z *Zone) PurgeAll() int {
	return z.purgeIf(func(*node) bool { return true })
}

func (z *Zone) purgeIf(match func(*node) bool) int {
	<-z.loaded
	z.mu.Lock()
	defer z.mu.Unlock()
	removed := 0
	for n := z.lru.next; n != &z.lru; {
		next := n.next
		if n.exists && match(n) {
			z.remove(n)
			removed++
		}
		n = next
	}
	return removed
}
