// This file lists the builtin variables edge knows. A name not here, not
// one of the prefixed families ($http_*, $sent_http_*, $cookie_*, $arg_*,
// $upstream_http_*) and not made by set/map/a named capture is an error at
// load time, as in nginx. Their values are computed by the proxy package.
package conf

// VarID names a builtin variable.
type VarID int

const (
	VarNone VarID = iota
	VarURI
	VarDocumentURI
	VarRequestURI
	VarArgs
	VarQueryString
	VarIsArgs
	VarRequestFilename
	VarDocumentRoot
	VarRealpathRoot
	VarHost
	VarHostname
	VarRemoteAddr
	VarBinaryRemoteAddr
	VarRemotePort
	VarRemoteUser
	VarServerAddr
	VarServerPort
	VarServerName
	VarServerProtocol
	VarScheme
	VarHTTPS
	VarRequestMethod
	VarRequest
	VarStatus
	VarBodyBytesSent
	VarBytesSent
	VarRequestTime
	VarRequestLength
	VarRequestID
	VarRequestBody
	VarRequestBodyFile
	VarContentType
	VarContentLength
	VarTimeLocal
	VarTimeISO8601
	VarMsec
	VarConnection
	VarConnectionRequests
	VarConnectionTime
	VarNginxVersion
	VarPid
	VarLimitRate
	VarPipe
	VarHTTP2
	VarGzipRatio
	VarBrotliRatio
	VarFastCGIScriptName
	VarFastCGIPathInfo
	VarSSLProtocol
	VarSSLCipher
	VarSSLSessionReused
	VarSSLServerName
	VarSSLSessionID
	VarSSLEarlyData
	VarSSLClientVerify
	VarUpstreamAddr
	VarUpstreamStatus
	VarUpstreamResponseTime
	VarUpstreamConnectTime
	VarUpstreamHeaderTime
	VarUpstreamCacheStatus
	VarUpstreamResponseLength
	VarUpstreamBytesReceived
	VarRealIPRemoteAddr
	VarRealIPRemotePort
	VarLimitReqStatus
	VarLimitConnStatus
	VarProxyProtocolAddr
	VarProxyProtocolPort
	VarProxyProtocolServerAddr
	VarProxyProtocolServerPort
	VarACMECertificate
	VarACMECertificateKey
	VarProxyHost
	VarProxyPort
	VarProxyAddXForwardedFor
	VarDateLocal
	VarDateGMT
	varCount
)

// builtinVars maps names to ids.
var builtinVars = map[string]VarID{
	"uri":                        VarURI,
	"document_uri":               VarDocumentURI,
	"request_uri":                VarRequestURI,
	"date_local":                 VarDateLocal,
	"date_gmt":                   VarDateGMT,
	"args":                       VarArgs,
	"query_string":               VarQueryString,
	"is_args":                    VarIsArgs,
	"request_filename":           VarRequestFilename,
	"document_root":              VarDocumentRoot,
	"realpath_root":              VarRealpathRoot,
	"host":                       VarHost,
	"hostname":                   VarHostname,
	"remote_addr":                VarRemoteAddr,
	"binary_remote_addr":         VarBinaryRemoteAddr,
	"remote_port":                VarRemotePort,
	"remote_user":                VarRemoteUser,
	"server_addr":                VarServerAddr,
	"server_port":                VarServerPort,
	"server_name":                VarServerName,
	"server_protocol":            VarServerProtocol,
	"scheme":                     VarScheme,
	"https":                      VarHTTPS,
	"request_method":             VarRequestMethod,
	"request":                    VarRequest,
	"status":                     VarStatus,
	"body_bytes_sent":            VarBodyBytesSent,
	"bytes_sent":                 VarBytesSent,
	"request_time":               VarRequestTime,
	"request_length":             VarRequestLength,
	"request_id":                 VarRequestID,
	"request_body":               VarRequestBody,
	"request_body_file":          VarRequestBodyFile,
	"content_type":               VarContentType,
	"content_length":             VarContentLength,
	"time_local":                 VarTimeLocal,
	"time_iso8601":               VarTimeISO8601,
	"msec":                       VarMsec,
	"connection":                 VarConnection,
	"connection_requests":        VarConnectionRequests,
	"connection_time":            VarConnectionTime,
	"nginx_version":              VarNginxVersion,
	"pid":                        VarPid,
	"limit_rate":                 VarLimitRate,
	"pipe":                       VarPipe,
	"http2":                      VarHTTP2,
	"gzip_ratio":                 VarGzipRatio,
	"brotli_ratio":               VarBrotliRatio,
	"fastcgi_script_name":        VarFastCGIScriptName,
	"fastcgi_path_info":          VarFastCGIPathInfo,
	"ssl_protocol":               VarSSLProtocol,
	"ssl_cipher":                 VarSSLCipher,
	"ssl_session_reused":         VarSSLSessionReused,
	"ssl_server_name":            VarSSLServerName,
	"ssl_session_id":             VarSSLSessionID,
	"ssl_early_data":             VarSSLEarlyData,
	"ssl_client_verify":          VarSSLClientVerify,
	"proxy_host":                 VarProxyHost,
	"proxy_port":                 VarProxyPort,
	"proxy_add_x_forwarded_for":  VarProxyAddXForwardedFor,
	"upstream_addr":              VarUpstreamAddr,
	"upstream_status":            VarUpstreamStatus,
	"upstream_response_time":     VarUpstreamResponseTime,
	"upstream_connect_time":      VarUpstreamConnectTime,
	"upstream_header_time":       VarUpstreamHeaderTime,
	"upstream_cache_status":      VarUpstreamCacheStatus,
	"upstream_response_length":   VarUpstreamResponseLength,
	"upstream_bytes_received":    VarUpstreamBytesReceived,
	"realip_remote_addr":         VarRealIPRemoteAddr,
	"realip_remote_port":         VarRealIPRemotePort,
	"limit_req_status":           VarLimitReqStatus,
	"limit_conn_status":          VarLimitConnStatus,
	"proxy_protocol_addr":        VarProxyProtocolAddr,
	"proxy_protocol_port":        VarProxyProtocolPort,
	"proxy_protocol_server_addr": VarProxyProtocolServerAddr,
	"proxy_protocol_server_port": VarProxyProtocolServerPort,
	"acme_certificate":           VarACMECertificate,
	"acme_certificate_key":       VarACMECertificateKey,
}

// VarName gives a builtin variable's name (for messages and dumps).
func (id VarID) String() string {
	for n, v := range builtinVars {
		if v == id {
			return n
		}
	}
	return "?"
}

// changeableBuiltins may be the target of "set".
var changeableBuiltins = map[string]bool{"args": true, "limit_rate": true}
