// This file holds the scenario for the script directives: map (exact
// keys, regexps with captures, default, hostnames), set, and if with every
// operator (=, !=, ~, ~*, !~, !~*, -f, -d, -e, -x and their negations).

package difftest

const scriptHTTP = `
map $uri $by_uri {
    default                          "none";
    /map/a                           "exact-a";
    /map/b                           "exact-b";
    ~^/map/re/(?<name>[a-z]+)/(\d+)$ "re-$name-$2";
    ~*^/map/CI/                      "caseless";
    ~^/map/re/                       "second-regex";
}

map $http_host $by_host {
    hostnames;
    default          "host-default";
    example.com      "host-exact";
    *.example.com    "host-wild-prefix";
    www.example.*    "host-wild-suffix";
    .dot.test        "host-dot";
    ~^api\d+\.test$  "host-regex";
}

map $arg_v $by_arg {
    default 0;
    1       one;
    2       two;
    ""      empty;
}

# split_clients (issue 15): the same key must land in the same part
split_clients "${arg_k}salt" $variant {
    0.5%   .one;
    2.0%   .two;
    33.33% three;
    50%    "$four";
    *      "";
}
split_clients $arg_k $half {
    50% a;
    50% b;
}

map $arg_k $chained {
    default "k=$arg_k via $by_arg";
    x       "literal-x";
}

server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    if ($arg_srv = "return") { return 200 "server-level if returned\n"; }
    if ($arg_srv = "break") { break; }
    if ($arg_srv = "rewrite") { rewrite ^ /set/basic last; }
    set $srv_var "from-server";

    location = /srv { return 200 "srv_var=$srv_var args=$args\n"; }
    location /map/ { return 200 "by_uri=$by_uri name=$name\n"; }
    location = /host { return 200 "by_host=$by_host\n"; }
    location = /arg { return 200 "by_arg=$by_arg chained=$chained\n"; }
    location = /split { return 200 "variant=$variant half=$half\n"; }

    location = /set/basic {
        set $a "hello";
        set $b "$a-world";
        set $c $uri;
        set $d "${a}X";
        return 200 "a=$a b=$b c=$c d=$d\n";
    }
    location = /set/elsewhere { set $only_elsewhere "x"; return 200 "set\n"; }
    location = /set/unset { return 200 "unset=[$only_elsewhere]\n"; }
    location = /set/override {
        set $a first;
        set $a second;
        return 200 "a=$a\n";
    }

    location = /if/var { if ($arg_x) { return 200 "true\n"; } return 200 "false\n"; }
    location = /if/eq { if ($arg_x = "yes") { return 200 "eq\n"; } return 200 "not eq\n"; }
    location = /if/ne { if ($arg_x != yes) { return 200 "ne\n"; } return 200 "not ne\n"; }
    location = /if/match {
        if ($arg_x ~ ^(\d+)-(\w+)$) { return 200 "match $1 $2\n"; }
        return 200 "no match\n";
    }
    location = /if/imatch { if ($arg_x ~* ^abc) { return 200 "imatch\n"; } return 200 "no imatch\n"; }
    location = /if/nomatch { if ($arg_x !~ ^[a-z]+$) { return 200 "nomatch\n"; } return 200 "matched\n"; }
    location = /if/inomatch { if ($arg_x !~* ^[a-z]+$) { return 200 "inomatch\n"; } return 200 "imatched\n"; }
    location = /if/f { if (-f $document_root$arg_p) { return 200 "-f yes\n"; } return 200 "-f no\n"; }
    location = /if/nf { if (!-f $document_root$arg_p) { return 200 "!-f yes\n"; } return 200 "!-f no\n"; }
    location = /if/d { if (-d $document_root$arg_p) { return 200 "-d yes\n"; } return 200 "-d no\n"; }
    location = /if/nd { if (!-d $document_root$arg_p) { return 200 "!-d yes\n"; } return 200 "!-d no\n"; }
    location = /if/e { if (-e $document_root$arg_p) { return 200 "-e yes\n"; } return 200 "-e no\n"; }
    location = /if/ne2 { if (!-e $document_root$arg_p) { return 200 "!-e yes\n"; } return 200 "!-e no\n"; }
    location = /if/x { if (-x $document_root$arg_p) { return 200 "-x yes\n"; } return 200 "-x no\n"; }
    location = /if/nx { if (!-x $document_root$arg_p) { return 200 "!-x yes\n"; } return 200 "!-x no\n"; }
    location = /if/method { if ($request_method = POST) { return 405; } return 200 "not post\n"; }
    location = /if/capture-rewrite {
        if ($arg_id ~ ^(\d+)$) { rewrite ^ /if/shown/$1? last; }
        return 200 "no id\n";
    }
    location /if/shown/ { return 200 "shown uri=$uri args=$args\n"; }
    location = /if/cookie { if ($cookie_session = "abc") { return 200 "session\n"; } return 200 "anonymous\n"; }
    location = /if/header { if ($http_x_test ~* "^on$") { return 200 "header on\n"; } return 200 "header off\n"; }
}
`

var _ = addScenario(scenario{
	name: "script",
	http: scriptHTTP,
	cases: append(splitCases(), []reqCase{
		get("map_exact_a", "/map/a"),
		get("map_exact_b", "/map/b"),
		get("map_default", "/map/zzz"),
		get("map_regex_captures", "/map/re/abc/42"),
		get("map_regex_second", "/map/re/ABC/42"),
		get("map_regex_caseless", "/map/ci/x"),
		get("map_host_exact", "/host", "Host: example.com"),
		get("map_host_exact_upper", "/host", "Host: EXAMPLE.com"),
		get("map_host_wild_prefix", "/host", "Host: a.example.com"),
		get("map_host_wild_suffix", "/host", "Host: www.example.org"),
		get("map_host_dot_base", "/host", "Host: dot.test"),
		get("map_host_dot_sub", "/host", "Host: x.y.dot.test"),
		get("map_host_regex", "/host", "Host: api12.test"),
		get("map_host_default", "/host", "Host: other.test"),
		get("map_host_port", "/host", "Host: example.com:8080"),
		get("map_arg_1", "/arg?v=1"),
		get("map_arg_2", "/arg?v=2"),
		get("map_arg_other", "/arg?v=9"),
		get("map_arg_empty", "/arg"),
		get("map_chained_literal", "/arg?k=x&v=1"),
		get("map_chained_vars", "/arg?k=y&v=2"),
		get("set_basic", "/set/basic"),
		get("server_if_return", "/srv?srv=return"),
		get("server_if_break", "/srv?srv=break"),
		get("server_if_rewrite", "/srv?srv=rewrite"),
		get("server_set", "/srv"),
		get("request_uri_var", "/if/capture-rewrite?id=5%20"),
		get("set_unset", "/set/unset"),
		get("set_override", "/set/override"),
		get("if_var_true", "/if/var?x=1"),
		get("if_var_zero", "/if/var?x=0"),
		get("if_var_empty", "/if/var?x="),
		get("if_var_absent", "/if/var"),
		get("if_eq", "/if/eq?x=yes"),
		get("if_eq_not", "/if/eq?x=no"),
		get("if_ne", "/if/ne?x=no"),
		get("if_ne_not", "/if/ne?x=yes"),
		get("if_match", "/if/match?x=12-ab"),
		get("if_match_not", "/if/match?x=ab-12"),
		get("if_imatch", "/if/imatch?x=ABCdef"),
		get("if_imatch_not", "/if/imatch?x=xabc"),
		get("if_nomatch", "/if/nomatch?x=123"),
		get("if_nomatch_not", "/if/nomatch?x=abc"),
		get("if_inomatch", "/if/inomatch?x=a1"),
		get("if_inomatch_not", "/if/inomatch?x=ABC"),
		get("if_f_file", "/if/f?p=/hello.txt"),
		get("if_f_dir", "/if/f?p=/dir"),
		get("if_f_missing", "/if/f?p=/missing"),
		get("if_nf_missing", "/if/nf?p=/missing"),
		get("if_nf_file", "/if/nf?p=/hello.txt"),
		get("if_d_dir", "/if/d?p=/dir"),
		get("if_d_file", "/if/d?p=/hello.txt"),
		get("if_nd_file", "/if/nd?p=/hello.txt"),
		get("if_e_dir", "/if/e?p=/dir"),
		get("if_e_missing", "/if/e?p=/nope"),
		get("if_not_e_missing", "/if/ne2?p=/nope"),
		get("if_not_e_file", "/if/ne2?p=/hello.txt"),
		get("if_x_exec", "/if/x?p=/exec.sh"),
		get("if_x_plain", "/if/x?p=/hello.txt"),
		get("if_x_dir", "/if/x?p=/dir"),
		get("if_nx_plain", "/if/nx?p=/hello.txt"),
		get("if_nx_missing", "/if/nx?p=/missing"),
		get("if_method_get", "/if/method"),
		post("if_method_post", "POST", "/if/method", "x"),
		get("if_capture_rewrite", "/if/capture-rewrite?id=77&other=1"),
		get("if_capture_rewrite_none", "/if/capture-rewrite?id=x"),
		get("if_cookie", "/if/cookie", "Cookie: a=1; session=abc"),
		get("if_cookie_not", "/if/cookie", "Cookie: session=abcd"),
		get("if_header", "/if/header", "X-Test: ON"),
		get("if_header_not", "/if/header"),
	}...),
})

// splitCases sends keys of every length class through both split_clients
// blocks: the parts they land in depend on nginx's MurmurHash2 alone.
func splitCases() []reqCase {
	var out []reqCase
	for _, k := range []string{"", "a", "ab", "abc", "abcd", "abcde", "client-1", "client-2", "client-3",
		"192.168.0.1", "10.0.0.7", "user%3D42", "x", "yy", "zzz", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
		"longer-key-with-many-bytes-0123456789", "%C3%A9t%C3%A9"} {
		out = append(out, get("split_"+k, "/split?k="+k))
	}
	return out
}
