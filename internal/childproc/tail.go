// tail.go reads the end of a child's output or log file: the end is what
// explains a failure.
package childproc

import (
	"fmt"
	"io"
	"os"
)

// Tail returns at most limit bytes from the end of the file at path,
// after a line saying how much was cut when the file is longer.
func Tail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	prefix := ""
	if st.Size() > limit {
		if _, err := f.Seek(-limit, io.SeekEnd); err != nil {
			return nil, err
		}
		prefix = fmt.Sprintf("[... %d bytes cut ...]\n", st.Size()-limit)
	}
	b, err := io.ReadAll(f)
	return append([]byte(prefix), b...), err
}
