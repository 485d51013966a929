// This file holds the access modules' scenario (issue 15): limit_req
// against a wp-login.php brute force (a quick sequence from one address
// through "rate=1r/m burst=2 nodelay", so the 503s do not depend on the
// timing of the run), limit_req_status, a dry run and $limit_req_status;
// auth_basic with good, bad, missing and malformed credentials in the
// schemes htpasswd and openssl write, "auth_basic off" inside, satisfy
// with allow/deny; limit_except with its own and inherited rules; realip from X-Forwarded-For, plainly and recursively,
// and allow/deny seeing the real address.

package difftest

import "encoding/base64"

// accessUsers is the user file (written by "htpasswd -nbm", "-nbs",
// "-nbB -C 5" and "openssl passwd -6"), with nginx's own {PLAIN}.
const accessUsers = `# staging users
plain:{PLAIN}plainpass
apr:$apr1$RDpTRVCm$OTJ148NSBdu5qj57ICtuQ1
sha:{SHA}z0jT3TdveclVlHs5WCpg5cPeIe8=
bc:$2y$05$RqWtH2xggxjBn3bLVQTY1OGtJl0bESilRTKeQSXzvUU9kf9NdkZnu
six:$6$abcdefgh$RsF9AJ8HoP76R311cOjvLwUfRXRBMDXmamy4ehcU19XHMPfxNGGa74E5jFmDeXjy3hUyQ1NNMAUMMg5vOcHDF0
`

// phpLimitRate sends X-Accel-Limit-Rate: ?r= (docroot_test.go).
const phpLimitRate = `<?php
if (isset($_GET['r'])) { header('X-Accel-Limit-Rate: ' . $_GET['r']); }
echo "rate\n";
`

const accessHTTP = `
limit_req_zone $binary_remote_addr zone=wplogin:1m rate=1r/m;
limit_req_zone $binary_remote_addr zone=api:1m rate=1r/m;
limit_req_zone $binary_remote_addr zone=dry:1m rate=1r/m;
limit_req_zone $arg_user zone=byuser:1m rate=1r/m;

server {
    listen {{LISTEN}};
    root {{ROOT}};
    add_header X-Limit-Req "$limit_req_status" always;

    location = /wp-login.php {
        limit_req zone=wplogin burst=2 nodelay;
        default_type text/html;
        alias {{ROOT}}/index.html;
    }
    location = /api.html {
        limit_req zone=api;
        limit_req_status 429;
        alias {{ROOT}}/index.html;
    }
    location = /dry.html {
        limit_req zone=dry;
        limit_req_dry_run on;
        alias {{ROOT}}/index.html;
    }
    location = /byuser.html {
        limit_req zone=byuser;
        alias {{ROOT}}/index.html;
    }

    location /staging/ {
        auth_basic "Staging area";
        auth_basic_user_file {{OUTSIDE}}/htpasswd;
        alias {{ROOT}}/dir/;
        location /staging/sub/ {
            auth_basic off;
            alias {{ROOT}}/dir/sub/;
        }
    }
    location /realm/ {
        auth_basic "$host";
        auth_basic_user_file {{OUTSIDE}}/htpasswd;
        alias {{ROOT}}/dir/;
    }
    location /nofile/ {
        auth_basic "x";
        auth_basic_user_file {{OUTSIDE}}/missing-htpasswd;
        alias {{ROOT}}/dir/;
    }
    location /any/ {
        satisfy any;
        allow 127.0.0.1;
        deny all;
        auth_basic "any";
        auth_basic_user_file {{OUTSIDE}}/htpasswd;
        alias {{ROOT}}/dir/;
    }
    location /anydeny/ {
        satisfy any;
        deny 127.0.0.1;
        auth_basic "anydeny";
        auth_basic_user_file {{OUTSIDE}}/htpasswd;
        alias {{ROOT}}/dir/;
    }
    location /all/ {
        deny 127.0.0.1;
        auth_basic "all";
        auth_basic_user_file {{OUTSIDE}}/htpasswd;
        alias {{ROOT}}/dir/;
    }

    location /le/ {
        alias {{ROOT}}/dir/;
        limit_except GET { deny all; }
    }
    location /leauth/ {
        alias {{ROOT}}/dir/;
        limit_except GET POST {
            auth_basic "write";
            auth_basic_user_file {{OUTSIDE}}/htpasswd;
        }
    }
    location /leown/ {
        allow 127.0.0.1;
        alias {{ROOT}}/dir/;
        limit_except get { deny all; }
    }
    location /leinherit/ {
        deny 127.0.0.1;
        alias {{ROOT}}/dir/;
        limit_except GET { auth_basic "x"; auth_basic_user_file {{OUTSIDE}}/htpasswd; }
    }

    location = /limitrate.php {
        limit_rate 12k;
        add_header X-Limit-Rate "$limit_rate";
        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_pass {{FPM}};
    }
    location = /limitrate-ignored.php {
        fastcgi_ignore_headers X-Accel-Limit-Rate;
        add_header X-Limit-Rate "$limit_rate";
        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/limitrate.php;
        fastcgi_pass {{FPM}};
    }
    location = /limitrate-set.php {
        set $limit_rate 20k;
        add_header X-Limit-Rate "$limit_rate";
        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/limitrate.php;
        fastcgi_pass {{FPM}};
    }

    location /realip/ {
        set_real_ip_from 127.0.0.1;
        set_real_ip_from 10.0.0.0/8;
        real_ip_header X-Forwarded-For;
        return 200 "$remote_addr $realip_remote_addr\n";
        location /realip/recursive/ {
            real_ip_recursive on;
            return 200 "$remote_addr $realip_remote_addr\n";
        }
        location /realip/deny/ {
            deny 203.0.113.9;
            alias {{ROOT}}/dir/;
        }
    }
    location /realip-xri/ {
        set_real_ip_from 127.0.0.1;
        return 200 "$remote_addr\n";
    }
}
`

func basic(user, password string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

var _ = addScenario(scenario{
	name: "access",
	http: accessHTTP,
	cases: cases([]reqCase{
		// A brute force on the login page: three pass (the first and a
		// burst of two), the rest are refused while the bucket is full.
		get("wplogin_1", "/wp-login.php"),
		get("wplogin_2", "/wp-login.php"),
		get("wplogin_3", "/wp-login.php"),
		get("wplogin_4", "/wp-login.php"),
		get("wplogin_5", "/wp-login.php"),
		get("wplogin_6", "/wp-login.php"),
		get("api_1", "/api.html"),
		get("api_2_429", "/api.html"),
		get("dry_1", "/dry.html"),
		get("dry_2_passes", "/dry.html"),
		get("byuser_empty_key", "/byuser.html"),
		get("byuser_empty_key_again", "/byuser.html"),
		get("byuser_a", "/byuser.html?user=a"),
		get("byuser_a_again", "/byuser.html?user=a"),
		get("byuser_b", "/byuser.html?user=b"),

		get("auth_none", "/staging/page.html"),
		get("auth_plain", "/staging/page.html", basic("plain", "plainpass")),
		get("auth_plain_wrong", "/staging/page.html", basic("plain", "nope")),
		get("auth_apr1", "/staging/page.html", basic("apr", "apr1pass")),
		get("auth_apr1_wrong", "/staging/page.html", basic("apr", "apr1pasS")),
		get("auth_sha", "/staging/page.html", basic("sha", "shapass")),
		get("auth_bcrypt", "/staging/page.html", basic("bc", "bcpass")),
		get("auth_bcrypt_wrong", "/staging/page.html", basic("bc", "bcpasS")),
		get("auth_sha512", "/staging/page.html", basic("six", "sixpass")),
		get("auth_unknown_user", "/staging/page.html", basic("mallory", "x")),
		get("auth_comment_line_user", "/staging/page.html", basic("# staging users", "")),
		get("auth_empty_user", "/staging/page.html", basic("", "plainpass")),
		get("auth_no_colon", "/staging/page.html", "Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte("plain"))),
		get("auth_malformed", "/staging/page.html", "Authorization: Basic !!!"),
		get("auth_lowercase_scheme", "/staging/page.html", "Authorization: basic "+base64.StdEncoding.EncodeToString([]byte("plain:plainpass"))),
		get("auth_bearer", "/staging/page.html", "Authorization: Bearer abc"),
		get("auth_off_inside", "/staging/sub/page.html"),
		get("auth_realm_variable", "/realm/page.html"),
		get("auth_missing_file", "/nofile/page.html", basic("plain", "plainpass")),
		get("auth_missing_file_no_credentials", "/nofile/page.html"),
		get("satisfy_any_allowed", "/any/page.html"),
		get("satisfy_any_denied_no_credentials", "/anydeny/page.html"),
		get("satisfy_any_denied_good_credentials", "/anydeny/page.html", basic("plain", "plainpass")),
		get("satisfy_all_denied_good_credentials", "/all/page.html", basic("plain", "plainpass")),
		get("satisfy_all_denied_no_credentials", "/all/page.html"),

		get("limit_except_get", "/le/page.html"),
		head("limit_except_head_with_get", "/le/page.html"),
		post("limit_except_post_denied", "POST", "/le/page.html", "a=1"),
		post("limit_except_delete_denied", "DELETE", "/le/page.html", ""),
		post("limit_except_unknown_method_denied", "FOO", "/le/page.html", ""),
		post("limit_except_auth_put_no_credentials", "PUT", "/leauth/page.html", "x"),
		post("limit_except_auth_put_credentials", "PUT", "/leauth/page.html", "x", basic("plain", "plainpass")),
		post("limit_except_auth_post_listed", "POST", "/leauth/page.html", "x"),
		get("limit_except_own_rules_get", "/leown/page.html"),
		post("limit_except_own_rules_post", "POST", "/leown/page.html", "x"),
		get("limit_except_inherits_deny_get", "/leinherit/page.html"),
		post("limit_except_inherits_deny_post", "POST", "/leinherit/page.html", "x", basic("plain", "plainpass")),

		get("realip_none", "/realip/"),
		get("realip_xff", "/realip/", "X-Forwarded-For: 203.0.113.9"),
		get("realip_xff_chain_last", "/realip/", "X-Forwarded-For: 198.51.100.1, 10.1.1.1"),
		get("realip_xff_recursive", "/realip/recursive/", "X-Forwarded-For: 198.51.100.1, 10.1.1.1"),
		get("realip_xff_recursive_all_trusted", "/realip/recursive/", "X-Forwarded-For: 10.2.2.2, 10.1.1.1"),
		get("realip_xff_two_lines", "/realip/recursive/", "X-Forwarded-For: 198.51.100.1", "X-Forwarded-For: 10.1.1.1"),
		get("realip_xff_junk", "/realip/", "X-Forwarded-For: not-an-address"),
		get("realip_xff_port", "/realip/", "X-Forwarded-For: 203.0.113.9:4444"),
		get("realip_deny_real_address", "/realip/deny/page.html", "X-Forwarded-For: 203.0.113.9"),
		get("realip_deny_other_address", "/realip/deny/page.html", "X-Forwarded-For: 203.0.113.10"),
		get("realip_x_real_ip", "/realip-xri/", "X-Real-IP: 192.0.2.77"),
		get("realip_x_real_ip_v6", "/realip-xri/", "X-Real-IP: 2001:db8::7"),
	}, viaPHP(
		// $limit_rate as the header filter sees it: X-Accel-Limit-Rate's,
		// "set"'s, or 0 before limit_rate is taken at the first write.
		get("limit_rate_x_accel", "/limitrate.php?r=13000"),
		get("limit_rate_x_accel_bad", "/limitrate.php?r=13k"),
		get("limit_rate_none", "/limitrate.php"),
		get("limit_rate_x_accel_ignored", "/limitrate-ignored.php?r=13000"),
		get("limit_rate_set", "/limitrate-set.php"),
		get("limit_rate_x_accel_over_set", "/limitrate-set.php?r=500"),
	)),
})
