// This file finds the php-fpm pools of a configuration without fpm_pool
// blocks: plain nginx syntax, where "fastcgi_pass php-fpm:9000;", a
// "unix:" socket or an upstream{} of FastCGI servers is all that names
// the pool (php-fpm in its own container, or Debian's php-fpm service).
// Each address becomes a pool edge reports on ("edge fpm status",
// fpm_status, edge_metrics) but never starts, reloads or tunes; its
// status page is found when it is read (fastcgi/fpm's Collect), since
// nginx syntax has no place to name pm.status_path.
package conf

// ReportPools are the pools edge reports on: the fpm_pool blocks, or,
// in a configuration without any, the pools behind its fastcgi_pass
// directives (PassPools).
func (h *HTTPConf) ReportPools() []*FPMPool {
	if len(h.Pools) > 0 {
		return h.Pools
	}
	return h.PassPools
}

// ReportPoolsNamed returns the report pools a name selects: an fpm_pool
// or pass pool by its Name, or every pool behind one fastcgi_pass by its
// argument (an upstream{} of several servers gives several pools); ""
// selects all.
func (h *HTTPConf) ReportPoolsNamed(name string) []*FPMPool {
	var out []*FPMPool
	for _, p := range h.ReportPools() {
		if name == "" || p.Name == name || p.Pass != "" && p.Pass == name {
			out = append(out, p)
		}
	}
	return out
}

// passPools makes a pool of each address the fastcgi_pass directives
// name, in file order, each address once: a fastcgi_pass's own address
// (the pool is named by its argument, "php-fpm:9000" or
// "unix:/run/php/php8.2-fpm.sock") or each server of the upstream{} it
// names (the pool is named by the upstream, or "UPSTREAM/ADDRESS" when
// it holds several servers). A fastcgi_pass with variables names no
// address until a request comes, and gives none.
func passPools(passes []*FastCGIPass) []*FPMPool {
	var out []*FPMPool
	seen := map[string]bool{}
	add := func(name, pass, network, address string, p *FastCGIPass) {
		if seen[network+"|"+address] {
			return
		}
		seen[network+"|"+address] = true
		out = append(out, &FPMPool{Name: name, Pass: pass, External: true, Network: network, Address: address,
			StatusNetwork: network, StatusAddress: address, File: p.File, Line: p.Line})
	}
	for _, p := range passes {
		switch {
		case p.Script != nil || p.Pool != nil:
		case p.Upstream != nil:
			u := p.Upstream
			for _, s := range u.Servers {
				name := u.Name
				if len(u.Servers) > 1 {
					name += "/" + FormatAddress(s.Network, s.Address)
				}
				add(name, u.Name, s.Network, s.Address, p)
			}
		case p.Network != "":
			add(p.Raw, p.Raw, p.Network, p.Address, p)
		}
	}
	return out
}

// FormatAddress writes an address as fastcgi_pass and $upstream_addr do:
// "unix:/run/x.sock" or "127.0.0.1:9000".
func FormatAddress(network, address string) string {
	if network == "unix" {
		return "unix:" + address
	}
	return address
}
