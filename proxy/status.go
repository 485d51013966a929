// This file holds the status handlers: nginx's stub_status (connection
// and request counters, in nginx's exact text format).
package proxy

import (
	"strconv"
)

// stubStatus answers with nginx's stub_status text.
func (rt *Site) stubStatus(r *Request) int {
	if r.Method != "GET" && r.Method != "HEAD" {
		return 405
	}
	st := rt.stats
	active := st.Active.Load()
	reading := st.reading.Load()
	writing := requestsInFlight.Load()
	waiting := active - reading - writing
	if waiting < 0 {
		waiting = 0
	}
	body := "Active connections: " + strconv.FormatInt(active, 10) + " \n" +
		"server accepts handled requests\n " +
		strconv.FormatInt(st.Accepted.Load(), 10) + " " +
		strconv.FormatInt(st.Handled.Load(), 10) + " " +
		strconv.FormatInt(st.requests.Load(), 10) + " \n" +
		"Reading: " + strconv.FormatInt(reading, 10) +
		" Writing: " + strconv.FormatInt(writing, 10) +
		" Waiting: " + strconv.FormatInt(waiting, 10) + " \n"
	resp := r.resp
	resp.Status = 200
	resp.Header.Set("Content-Type", "text/plain")
	resp.Kind = BodyBytes
	resp.Bytes = []byte(body)
	resp.Length = int64(len(body))
	return 0
}
