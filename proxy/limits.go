// This file holds the limit modules' phases: limit_conn and limit_req in
// nginx's preaccess phase, once per main request. The engines are
// proxy/limit's (docs/access.md).
package proxy

// limits runs limit_conn and limit_req for the request's location.
func (rt *site) limits(r *Request) int {
	return 0
}
