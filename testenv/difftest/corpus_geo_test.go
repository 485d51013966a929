// This file holds the geo scenario (issue 15): CIDR blocks over IPv4 and
// IPv6 with the longest prefix winning, default, delete, include and
// values that look like variables; ranges blocks with ranges that split,
// shrink and replace earlier ones across /16 boundaries; the client
// address taken from X-Forwarded-For behind trusted proxies, plainly and
// recursively; addresses that do not parse; and a geo variable that a
// later map or split_clients defines anew, or that redefines a map's. The address comes from
// ?ip= so that each request chooses it; $remote uses the connection's.

package difftest

const geoHTTP = `
geo $arg_ip $cidr {
    default           def;
    10.0.0.0/8        ten;
    10.1.0.0/16       ten-one;
    10.1.2.0/24       ten-one-two;
    10.1.2.3          host;
    10.1.2.3/32       host-again;
    192.168.0.0/16    lan;
    192.168.1.0/24    lan-one;
    delete            192.168.1.0/24;
    1.2.3.4/24        low-bits;
    5.5.5.5           "$not_a_variable";
    255.255.255.255   all-ones;
    0.0.0.0/1         low-half;
    ::1               v6-loopback;
    2001:db8::/32     doc;
    2001:db8:1::/48   doc-one;
    2001:db8:1::1/128 doc-one-host;
    ::ffff:10.9.9.9   mapped-entry;
    ::/1              v6-low-half;
    include           {{OUTSIDE}}/geo-include.conf;
}

geo $arg_ip $nodefault {
    10.0.0.0/8 ten;
}

geo $remote {
    127.0.0.0/8 loopback;
    default     other;
}

geo $arg_ip $proxied {
    proxy   127.0.0.1;
    proxy   10.0.0.0/8;
    proxy   2001:db8::/32;
    default def;
    1.1.1.1 one;
    2.2.2.2 two;
    10.0.0.1 ten;
    2001:db8::1 six;
    3.3.3.3 three;
}

geo $arg_ip $recursive {
    proxy           127.0.0.1;
    proxy           10.0.0.0/8;
    proxy_recursive;
    default         def;
    1.1.1.1         one;
    2.2.2.2         two;
    10.0.0.1        ten;
    10.0.0.2        ten-two;
}

geo $arg_ip $ranges {
    ranges;
    default                       rdef;
    10.0.0.0-10.0.0.255           a;
    10.0.0.10-10.0.0.20           split;
    10.0.0.0-10.0.0.5             head;
    10.0.0.250-10.0.0.255         tail;
    10.0.1.0-10.2.255.255         wide;
    10.1.0.0-10.1.255.255         replaced;
    delete                        10.2.0.0-10.2.255.255;
    127.0.0.0-127.0.0.255         loop;
    192.168.0.0-192.168.255.255   net1;
    192.169.0.0-192.169.255.255   net2;
    255.255.255.0-255.255.255.254 top;
    0.0.0.0-0.0.0.255             zero;
}

geo $arg_ip $ranges_nodefault {
    ranges;
    proxy 127.0.0.1;
    10.0.0.0-10.0.0.255 a;
}

# map, split_clients and geo variables are changeable: the last block
# defines the variable, for the uses before it too.
map $uri $redefined { default from-map; }
geo $arg_ip $redefined { default from-geo; 10.0.0.0/8 ten-geo; }
geo $arg_ip $geo_then_map { default from-geo; }
map $arg_ip $geo_then_map { default from-map; 10.0.0.1 ten-map; }
geo $arg_ip $geo_then_split { default from-geo; }
split_clients $arg_ip $geo_then_split { 50% first; * second; }

server {
    listen {{LISTEN}};
    server_name localhost;
    location = /geo { return 200 "cidr=$cidr nodefault=[$nodefault] ranges=$ranges rnd=[$ranges_nodefault] remote=$remote\n"; }
    location = /redefined { return 200 "redefined=$redefined geo_then_map=$geo_then_map geo_then_split=$geo_then_split\n"; }
    location = /xff { return 200 "proxied=$proxied recursive=$recursive rnd=[$ranges_nodefault]\n"; }
}
`

var _ = addScenario(scenario{
	name: "geo",
	http: geoHTTP,
	cases: append(geoAddrCases(), []reqCase{
		get("geo_redefined_10", "/redefined?ip=10.0.0.1"),
		get("geo_redefined_other", "/redefined?ip=1.2.3.4"),
		get("geo_redefined_split", "/redefined?ip=abc"),
		get("geo_xff_none", "/xff?ip=127.0.0.1"),
		get("geo_xff_untrusted", "/xff?ip=4.4.4.4", "X-Forwarded-For: 1.1.1.1"),
		get("geo_xff_last", "/xff?ip=127.0.0.1", "X-Forwarded-For: 2.2.2.2, 1.1.1.1"),
		get("geo_xff_chain", "/xff?ip=127.0.0.1", "X-Forwarded-For: 2.2.2.2, 10.0.0.1"),
		get("geo_xff_chain_all_proxies", "/xff?ip=127.0.0.1", "X-Forwarded-For: 10.0.0.2, 10.0.0.1"),
		get("geo_xff_chain_three", "/xff?ip=127.0.0.1", "X-Forwarded-For: 1.1.1.1, 2.2.2.2, 10.0.0.2, 10.0.0.1"),
		get("geo_xff_two_lines", "/xff?ip=127.0.0.1", "X-Forwarded-For: 2.2.2.2", "X-Forwarded-For: 10.0.0.1"),
		get("geo_xff_two_lines_plain", "/xff?ip=127.0.0.1", "X-Forwarded-For: 10.0.0.1", "X-Forwarded-For: 2.2.2.2"),
		get("geo_xff_trailing_commas", "/xff?ip=127.0.0.1", "X-Forwarded-For: 1.1.1.1, ,"),
		get("geo_xff_no_space", "/xff?ip=127.0.0.1", "X-Forwarded-For: 2.2.2.2,10.0.0.1"),
		get("geo_xff_port", "/xff?ip=127.0.0.1", "X-Forwarded-For: 1.1.1.1:8080"),
		get("geo_xff_port_zero", "/xff?ip=127.0.0.1", "X-Forwarded-For: 1.1.1.1:0"),
		get("geo_xff_v6", "/xff?ip=127.0.0.1", "X-Forwarded-For: 2001:db8::1"),
		get("geo_xff_v6_port", "/xff?ip=127.0.0.1", "X-Forwarded-For: [2001:db8::1]:443"),
		get("geo_xff_v6_proxy", "/xff?ip=2001:db8::5", "X-Forwarded-For: 3.3.3.3"),
		get("geo_xff_mapped_proxy", "/xff?ip=::ffff:127.0.0.1", "X-Forwarded-For: 3.3.3.3"),
		get("geo_xff_garbage", "/xff?ip=127.0.0.1", "X-Forwarded-For: unknown"),
		get("geo_xff_garbage_left", "/xff?ip=127.0.0.1", "X-Forwarded-For: unknown, 10.0.0.1"),
		get("geo_xff_empty", "/xff?ip=127.0.0.1", "X-Forwarded-For: "),
		get("geo_xff_leading_comma", "/xff?ip=127.0.0.1", "X-Forwarded-For: ,1.1.1.1"),
		get("geo_xff_bad_source", "/xff?ip=bad", "X-Forwarded-For: 1.1.1.1"),
		get("geo_xff_no_ip", "/xff", "X-Forwarded-For: 1.1.1.1"),
		get("geo_xff_ranges", "/xff?ip=127.0.0.1", "X-Forwarded-For: 10.0.0.7"),
	}...),
})

// geoAddrCases sends addresses at each boundary of the blocks above, and
// ones nginx cannot parse (looked up as 255.255.255.255).
func geoAddrCases() []reqCase {
	var out []reqCase
	for _, ip := range []string{
		"10.0.0.0", "10.0.0.1", "10.0.0.5", "10.0.0.6", "10.0.0.9", "10.0.0.10", "10.0.0.20", "10.0.0.21",
		"10.0.0.249", "10.0.0.250", "10.0.0.255", "10.0.1.0", "10.0.255.255", "10.1.0.0", "10.1.2.2", "10.1.2.3",
		"10.1.2.4", "10.1.3.0", "10.1.255.255", "10.2.0.0", "10.2.255.255", "10.3.0.0", "10.255.255.255", "11.0.0.0",
		"127.0.0.1", "127.0.1.0", "192.168.0.1", "192.168.1.1", "192.168.255.255", "192.169.0.0", "192.169.255.255",
		"192.170.0.0", "1.2.3.0", "1.2.3.255", "1.2.4.0", "5.5.5.5", "172.16.0.1", "172.16.5.1", "172.31.255.255",
		"172.32.0.0", "0.0.0.0", "0.0.0.255", "0.0.1.0", "127.255.255.255", "128.0.0.0", "255.255.255.0",
		"255.255.255.254", "255.255.255.255", "01.02.03.04", "1..2.3", "10.1.2.", "256.0.0.1", "1.2.3", "1.2.3.4.5",
		"::1", "::2", "::", "2001:db8::", "2001:db8:0:1::", "2001:db8:1::", "2001:db8:1::1", "2001:db8:1::2",
		"2001:DB8:1::1", "2001:db9::", "8000::", "::ffff:10.9.9.9", "::ffff:10.1.2.3", "::ffff:127.0.0.1",
		"::10.1.2.3", ":1:2:3:4:5:6:7", "1::2::3", "2001:db8::1%25lo", "[::1]", "", "garbage", "10.0.0.1:80",
	} {
		out = append(out, get("geo_"+ip, "/geo?ip="+ip))
	}
	return append(out, get("geo_no_arg", "/geo"))
}
