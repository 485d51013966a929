// This file lists directives nginx has that edge does not implement, so a
// config that uses one gets a message that says so instead of "unknown
// directive": harmless ones are ignored with a [warn] and a reason, the
// rest are an [emerg] (nothing is silently dropped).
package conf

import "strings"

// ignoredDirectives are safe to ignore: edge does the right thing without
// them, or they tune nginx internals edge does not have. The value says why.
var ignoredDirectives = map[string]string{
	"sendfile":                       "edge chooses sendfile or memory per file itself",
	"sendfile_max_chunk":             "edge chooses sendfile or memory per file itself",
	"tcp_nopush":                     "edge sends headers and a short body in one write, and a long response's first write with MSG_MORE",
	"tcp_nodelay":                    "Go sets TCP_NODELAY on every connection",
	"worker_rlimit_nofile":           "edge raises its open-file limit to the hard limit at start",
	"worker_rlimit_core":             "not applicable to a Go process",
	"worker_cpu_affinity":            "pin edge with taskset or systemd's CPUAffinity",
	"worker_priority":                "set the priority with nice or systemd's Nice",
	"multi_accept":                   "Go's runtime accepts as fast as connections arrive",
	"use":                            "Go's runtime uses epoll on Linux",
	"accept_mutex":                   "edge is one process; there is no accept mutex",
	"accept_mutex_delay":             "edge is one process; there is no accept mutex",
	"master_process":                 "edge is one process",
	"timer_resolution":               "edge reads the clock as needed",
	"pcre_jit":                       "edge uses Go's regexp engine",
	"thread_pool":                    "Go's runtime schedules blocking I/O itself",
	"aio":                            "Go's runtime schedules blocking I/O itself",
	"aio_write":                      "Go's runtime schedules blocking I/O itself",
	"directio":                       "edge reads files through the page cache",
	"directio_alignment":             "edge reads files through the page cache",
	"output_buffers":                 "edge sizes its buffers itself",
	"postpone_output":                "edge sizes its buffers itself",
	"server_names_hash_bucket_size":  "edge's server name lookup has no fixed-size hash",
	"server_names_hash_max_size":     "edge's server name lookup has no fixed-size hash",
	"types_hash_max_size":            "edge's type lookup has no fixed-size hash",
	"types_hash_bucket_size":         "edge's type lookup has no fixed-size hash",
	"variables_hash_max_size":        "edge's variables are resolved at load time",
	"variables_hash_bucket_size":     "edge's variables are resolved at load time",
	"map_hash_max_size":              "edge's map lookup has no fixed-size hash",
	"map_hash_bucket_size":           "edge's map lookup has no fixed-size hash",
	"proxy_buffers":                  "edge buffers proxied responses in memory up to 1 MiB, then in a temp file",
	"proxy_busy_buffers_size":        "edge buffers proxied responses in memory up to 1 MiB, then in a temp file",
	"proxy_max_temp_file_size":       "edge buffers proxied responses in memory up to 1 MiB, then in a temp file",
	"proxy_temp_file_write_size":     "edge buffers proxied responses in memory up to 1 MiB, then in a temp file",
	"proxy_headers_hash_max_size":    "edge has no fixed-size hashes",
	"proxy_headers_hash_bucket_size": "edge has no fixed-size hashes",
	"connection_pool_size":           "edge's memory is managed by Go",
	"request_pool_size":              "edge's memory is managed by Go",
	"client_header_buffer_size":      "large_client_header_buffers sets edge's header size limit",
	"client_body_in_single_buffer":   "edge hands bodies over as a stream",
	"lingering_close":                "edge drains a request body it did not read before closing",
	"lingering_time":                 "edge lingers after an error response with nginx's default, 30s",
	"lingering_timeout":              "edge lingers after an error response with nginx's default, 5s",
	"reset_timedout_connection":      "edge closes timed-out connections at once",
	"msie_padding":                   "no browser in use needs it",
	"msie_refresh":                   "no browser in use needs it",
	"open_file_cache_min_uses":       "edge caches every file it serves",
	"debug_points":                   "not applicable to a Go process",
	"lock_file":                      "edge is one process; there is no lock file",
	"working_directory":              "edge does not write core files",
	"gzip_buffers":                   "edge sizes its compression buffers itself",
	"gzip_window":                    "edge uses the compressor's default window",
	"gzip_hash":                      "edge uses the compressor's default memory level",
	"fastcgi_buffer_size":            "edge reads FastCGI headers of any size up to 64 KiB per line",
	"fastcgi_buffers":                "edge buffers FastCGI responses in memory, then in a temp file",
	"fastcgi_busy_buffers_size":      "edge buffers FastCGI responses in memory, then in a temp file",
	"fastcgi_max_temp_file_size":     "edge buffers FastCGI responses in memory, then in a temp file",
	"fastcgi_temp_file_write_size":   "edge buffers FastCGI responses in memory, then in a temp file",
	"fastcgi_temp_path":              "edge buffers FastCGI responses in memory, then in a temp file",
	"http2_max_field_size":           "obsolete in nginx; edge limits header sizes with large_client_header_buffers",
	"http2_max_header_size":          "obsolete in nginx; edge limits header sizes with large_client_header_buffers",
	"http2_idle_timeout":             "obsolete in nginx; keepalive_timeout applies",
	"http2_recv_timeout":             "obsolete in nginx; client_header_timeout applies",
	"http2_recv_buffer_size":         "edge's HTTP/2 engine sizes its own buffers",
	"http2_chunk_size":               "edge's HTTP/2 engine sizes its own frames",
	"http2_body_preread_size":        "edge's HTTP/2 engine sizes its own windows",
	"http2_push_preload":             "HTTP/2 server push is not implemented by browsers any more",
	"http2_push":                     "HTTP/2 server push is not implemented by browsers any more",
	"http2_max_requests":             "keepalive_requests applies",
	"acme_shared_zone":               "edge keeps ACME state in memory and in the issuer's state_path",
}

// unsupportedDirectives are refused with a reason, because ignoring them
// would change what the site does.
var unsupportedDirectives = map[string]string{
	"proxy_bind":              "binding upstream connections to a local address is not implemented",
	"proxy_store":             "saving proxied responses to files (proxy_store) is not implemented",
	"proxy_store_access":      "saving proxied responses to files (proxy_store) is not implemented",
	"proxy_ssl_ciphers":       "OpenSSL cipher strings for upstream TLS are not implemented; Go's crypto/tls chooses",
	"proxy_ssl_crl":           "certificate revocation lists for upstream TLS are not implemented",
	"proxy_ssl_password_file": "encrypted upstream client keys are not implemented",
	"proxy_ssl_conf_command":  "OpenSSL commands have no counterpart in Go's crypto/tls",
	"perl":                    "embedded Perl is not available",
	"perl_modules":            "embedded Perl is not available",
	"perl_require":            "embedded Perl is not available",
	"perl_set":                "embedded Perl is not available",
	"js_import":               "njs is not available",
	"js_content":              "njs is not available",
	"js_set":                  "njs is not available",
	"stream":                  "the stream (TCP/UDP proxy) module is not implemented",
	"mail":                    "the mail proxy module is not implemented",
	"sub_filter":              "sub_filter is not implemented",
	"ssl":                     "use \"listen ... ssl\" (nginx removed the \"ssl\" directive in 1.25.1)",
	"ssl_conf_command":        "OpenSSL commands have no counterpart in Go's crypto/tls; see docs/tls.md",
	"ssl_engine":              "OpenSSL engines have no counterpart in Go's crypto/tls",
	"ssl_client_certificate":  "client certificate authentication is not implemented",
	"ssl_verify_client":       "client certificate authentication is not implemented",
}

// nginxDirectives lists the rest of nginx's directives (the official
// modules, as in nginx's alphabetical index), so edge can tell "nginx has
// it, edge does not" from a typo.
var nginxDirectives = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(nginxDirectiveNames) {
		m[n] = true
	}
	return m
}()

const nginxDirectiveNames = `
absolute_redirect accept_mutex accept_mutex_delay access_log add_after_body
add_before_body add_header add_trailer addition_types aio aio_write alias allow
ancient_browser ancient_browser_value api auth_basic auth_basic_user_file
auth_delay auth_http auth_http_header auth_http_pass_client_cert
auth_http_timeout auth_jwt auth_jwt_claim_set auth_jwt_header_set
auth_jwt_key_file auth_jwt_key_request auth_jwt_leeway auth_jwt_type
auth_request auth_request_set autoindex autoindex_exact_size autoindex_format
autoindex_localtime break charset charset_map charset_types
chunked_transfer_encoding client_body_buffer_size client_body_in_file_only
client_body_in_single_buffer client_body_temp_path client_body_timeout
client_header_buffer_size client_header_timeout client_max_body_size
connection_pool_size create_full_put_path daemon dav_access dav_methods
debug_connection debug_points default_type deny directio directio_alignment
disable_symlinks empty_gif env error_log error_page etag events expires f4f
f4f_buffer_size fastcgi_bind fastcgi_buffer_size fastcgi_buffering
fastcgi_buffers fastcgi_busy_buffers_size fastcgi_cache
fastcgi_cache_background_update fastcgi_cache_bypass fastcgi_cache_key
fastcgi_cache_lock fastcgi_cache_lock_age fastcgi_cache_lock_timeout
fastcgi_cache_max_range_offset fastcgi_cache_methods fastcgi_cache_min_uses
fastcgi_cache_path fastcgi_cache_purge fastcgi_cache_revalidate
fastcgi_cache_use_stale fastcgi_cache_valid fastcgi_catch_stderr
fastcgi_connect_timeout fastcgi_force_ranges fastcgi_hide_header
fastcgi_ignore_client_abort fastcgi_ignore_headers fastcgi_index
fastcgi_intercept_errors fastcgi_keep_conn fastcgi_limit_rate
fastcgi_max_temp_file_size fastcgi_next_upstream fastcgi_next_upstream_timeout
fastcgi_next_upstream_tries fastcgi_no_cache fastcgi_param fastcgi_pass
fastcgi_pass_header fastcgi_pass_request_body fastcgi_pass_request_headers
fastcgi_read_timeout fastcgi_request_buffering fastcgi_send_lowat
fastcgi_send_timeout fastcgi_socket_keepalive fastcgi_split_path_info
fastcgi_store fastcgi_store_access fastcgi_temp_file_write_size
fastcgi_temp_path flv geo geoip_city geoip_country geoip_org geoip_proxy
geoip_proxy_recursive grpc_bind grpc_buffer_size grpc_connect_timeout
grpc_hide_header grpc_ignore_headers grpc_intercept_errors grpc_next_upstream
grpc_next_upstream_timeout grpc_next_upstream_tries grpc_pass grpc_pass_header
grpc_read_timeout grpc_send_timeout grpc_set_header grpc_socket_keepalive
grpc_ssl_certificate grpc_ssl_certificate_key grpc_ssl_ciphers grpc_ssl_conf_command
grpc_ssl_crl grpc_ssl_name grpc_ssl_password_file grpc_ssl_protocols
grpc_ssl_server_name grpc_ssl_session_reuse grpc_ssl_trusted_certificate
grpc_ssl_verify grpc_ssl_verify_depth gunzip gunzip_buffers gzip gzip_buffers
gzip_comp_level gzip_disable gzip_http_version gzip_min_length gzip_proxied
gzip_static gzip_types gzip_vary hash health_check health_check_timeout hls
hls_buffers hls_forward_args hls_fragment hls_mp4_buffer_size
hls_mp4_max_buffer_size http http2 http2_body_preread_size http2_chunk_size
http2_idle_timeout http2_max_concurrent_pushes http2_max_concurrent_streams
http2_max_field_size http2_max_header_size http2_max_requests http2_push
http2_push_preload http2_recv_buffer_size http2_recv_timeout http3
http3_hq http3_max_concurrent_streams http3_stream_buffer_size if
if_modified_since ignore_invalid_headers image_filter image_filter_buffer
image_filter_interlace image_filter_jpeg_quality image_filter_sharpen
image_filter_transparency image_filter_webp_quality imap_auth
imap_capabilities imap_client_buffer include index internal
internal_redirect ip_hash js_access js_body_filter js_content
js_fetch_buffer_size js_fetch_ciphers js_fetch_max_response_buffer_size
js_fetch_protocols js_fetch_timeout js_fetch_trusted_certificate
js_fetch_verify js_fetch_verify_depth js_filter js_header_filter js_import
js_include js_path js_preread js_preload_object js_set js_shared_dict_zone
js_var keepalive keepalive_disable keepalive_requests keepalive_time
keepalive_timeout keyval keyval_zone large_client_header_buffers least_conn
least_time limit_conn limit_conn_dry_run limit_conn_log_level
limit_conn_status limit_conn_zone limit_except limit_rate limit_rate_after
limit_req limit_req_dry_run limit_req_log_level limit_req_status
limit_req_zone limit_zone lingering_close lingering_time lingering_timeout
listen load_module location lock_file log_format log_not_found
log_subrequest mail map map_hash_bucket_size map_hash_max_size master_process
match max_errors max_ranges memcached_bind memcached_buffer_size
memcached_connect_timeout memcached_gzip_flag memcached_next_upstream
memcached_next_upstream_timeout memcached_next_upstream_tries memcached_pass
memcached_read_timeout memcached_send_timeout memcached_socket_keepalive
merge_slashes min_delete_depth mirror mirror_request_body modern_browser
modern_browser_value mp4 mp4_buffer_size mp4_limit_rate mp4_limit_rate_after
mp4_max_buffer_size mp4_start_key_frame msie_padding msie_refresh
multi_accept ntlm open_file_cache open_file_cache_errors
open_file_cache_min_uses open_file_cache_valid open_log_file_cache
output_buffers override_charset pcre_jit perl perl_modules perl_require
perl_set pid pop3_auth pop3_capabilities port_in_redirect postpone_output
preread_buffer_size preread_timeout protocol proxy_bind proxy_buffer
proxy_buffer_size proxy_buffering proxy_buffers proxy_busy_buffers_size
proxy_cache proxy_cache_background_update proxy_cache_bypass
proxy_cache_convert_head proxy_cache_key proxy_cache_lock
proxy_cache_lock_age proxy_cache_lock_timeout proxy_cache_max_range_offset
proxy_cache_methods proxy_cache_min_uses proxy_cache_path proxy_cache_purge
proxy_cache_revalidate proxy_cache_use_stale proxy_cache_valid
proxy_connect_timeout proxy_cookie_domain proxy_cookie_flags
proxy_cookie_path proxy_download_rate proxy_force_ranges
proxy_half_close proxy_headers_hash_bucket_size proxy_headers_hash_max_size
proxy_hide_header proxy_http_version proxy_ignore_client_abort
proxy_ignore_headers proxy_intercept_errors proxy_limit_rate
proxy_max_temp_file_size proxy_method proxy_next_upstream
proxy_next_upstream_timeout proxy_next_upstream_tries proxy_no_cache
proxy_pass proxy_pass_error_message proxy_pass_header
proxy_pass_request_body proxy_pass_request_headers proxy_protocol
proxy_protocol_timeout proxy_read_timeout proxy_redirect
proxy_request_buffering proxy_requests proxy_responses proxy_send_lowat
proxy_send_timeout proxy_set_body proxy_set_header proxy_smtp_auth
proxy_socket_keepalive proxy_ssl proxy_ssl_certificate
proxy_ssl_certificate_key proxy_ssl_ciphers proxy_ssl_conf_command
proxy_ssl_crl proxy_ssl_name proxy_ssl_password_file proxy_ssl_protocols
proxy_ssl_server_name proxy_ssl_session_reuse proxy_ssl_trusted_certificate
proxy_ssl_verify proxy_ssl_verify_depth proxy_store proxy_store_access
proxy_temp_file_write_size proxy_temp_path proxy_timeout proxy_upload_rate
queue quic_active_connection_id_limit quic_bpf quic_gso quic_host_key
quic_retry random random_index read_ahead real_ip_header
real_ip_recursive recursive_error_pages referer_hash_bucket_size
referer_hash_max_size request_pool_size reset_timedout_connection resolver
resolver_timeout return rewrite rewrite_log root satisfy scgi_bind
scgi_buffer_size scgi_buffering scgi_buffers scgi_busy_buffers_size
scgi_cache scgi_cache_background_update scgi_cache_bypass scgi_cache_key
scgi_cache_lock scgi_cache_lock_age scgi_cache_lock_timeout
scgi_cache_max_range_offset scgi_cache_methods scgi_cache_min_uses
scgi_cache_path scgi_cache_purge scgi_cache_revalidate scgi_cache_use_stale
scgi_cache_valid scgi_connect_timeout scgi_force_ranges scgi_hide_header
scgi_ignore_client_abort scgi_ignore_headers scgi_intercept_errors
scgi_limit_rate scgi_max_temp_file_size scgi_next_upstream
scgi_next_upstream_timeout scgi_next_upstream_tries scgi_no_cache
scgi_param scgi_pass scgi_pass_header scgi_pass_request_body
scgi_pass_request_headers scgi_read_timeout scgi_request_buffering
scgi_send_timeout scgi_socket_keepalive scgi_store scgi_store_access
scgi_temp_file_write_size scgi_temp_path secure_link secure_link_md5
secure_link_secret send_lowat send_timeout sendfile sendfile_max_chunk
server server_name server_name_in_redirect server_names_hash_bucket_size
server_names_hash_max_size server_tokens session_log session_log_format
session_log_zone set set_real_ip_from slice slow_start smtp_auth
smtp_capabilities smtp_client_buffer smtp_greeting_delay source_charset
split_clients ssi ssi_last_modified ssi_min_file_chunk ssi_silent_errors
ssi_types ssi_value_length ssl ssl_alpn ssl_buffer_size ssl_certificate
ssl_certificate_key ssl_ciphers ssl_client_certificate ssl_conf_command
ssl_crl ssl_dhparam ssl_early_data ssl_ecdh_curve ssl_engine
ssl_handshake_timeout ssl_ocsp ssl_ocsp_cache ssl_ocsp_responder
ssl_password_file ssl_prefer_server_ciphers ssl_preread ssl_protocols
ssl_reject_handshake ssl_session_cache ssl_session_ticket_key
ssl_session_tickets ssl_session_timeout ssl_stapling ssl_stapling_file
ssl_stapling_responder ssl_stapling_verify ssl_trusted_certificate
ssl_verify_client ssl_verify_depth starttls state status status_format
status_zone sticky sticky_cookie_insert stream stub_status sub_filter
sub_filter_last_modified sub_filter_once sub_filter_types tcp_nodelay
tcp_nopush thread_pool timeout timer_resolution try_files types
types_hash_bucket_size types_hash_max_size underscores_in_headers
uninitialized_variable_warn upstream upstream_conf use user userid
userid_domain userid_expires userid_flags userid_mark userid_name
userid_p3p userid_path userid_service uwsgi_bind uwsgi_buffer_size
uwsgi_buffering uwsgi_buffers uwsgi_busy_buffers_size uwsgi_cache
uwsgi_cache_background_update uwsgi_cache_bypass uwsgi_cache_key
uwsgi_cache_lock uwsgi_cache_lock_age uwsgi_cache_lock_timeout
uwsgi_cache_max_range_offset uwsgi_cache_methods uwsgi_cache_min_uses
uwsgi_cache_path uwsgi_cache_purge uwsgi_cache_revalidate
uwsgi_cache_use_stale uwsgi_cache_valid uwsgi_connect_timeout
uwsgi_force_ranges uwsgi_hide_header uwsgi_ignore_client_abort
uwsgi_ignore_headers uwsgi_intercept_errors uwsgi_limit_rate
uwsgi_max_temp_file_size uwsgi_modifier1 uwsgi_modifier2
uwsgi_next_upstream uwsgi_next_upstream_timeout uwsgi_next_upstream_tries
uwsgi_no_cache uwsgi_param uwsgi_pass uwsgi_pass_header
uwsgi_pass_request_body uwsgi_pass_request_headers uwsgi_read_timeout
uwsgi_request_buffering uwsgi_send_timeout uwsgi_socket_keepalive
uwsgi_ssl_certificate uwsgi_ssl_certificate_key uwsgi_ssl_ciphers
uwsgi_ssl_conf_command uwsgi_ssl_crl uwsgi_ssl_name uwsgi_ssl_password_file
uwsgi_ssl_protocols uwsgi_ssl_server_name uwsgi_ssl_session_reuse
uwsgi_ssl_trusted_certificate uwsgi_ssl_verify uwsgi_ssl_verify_depth
uwsgi_store uwsgi_store_access uwsgi_temp_file_write_size uwsgi_temp_path
valid_referers variables_hash_bucket_size variables_hash_max_size
worker_aio_requests worker_connections worker_cpu_affinity worker_priority
worker_processes worker_rlimit_core worker_rlimit_nofile
worker_shutdown_timeout working_directory xclient xml_entities xslt_last_modified
xslt_param xslt_string_param xslt_stylesheet xslt_types zone zone_sync
acme_issuer acme_certificate acme_shared_zone uri contact state_path
accept_terms_of_service account_key challenge external_account_key
ssl_trusted_certificate ssl_verify_depth
`
