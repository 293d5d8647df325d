package shared

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRESPFrames: the framing of well-formed replies is followed to their
// end however the stream is cut into reads, and a reply over the bounds, or
// one whose framing cannot be followed, fails at its header.
func TestRESPFrames(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxRedisReply-16)
	for _, tc := range []struct {
		name   string
		stream string
		ok     bool
	}{
		{"simple replies", "+OK\r\n-ERR no\r\n:-5\r\n,1.5\r\n#t\r\n(123\r\n_\r\n", true},
		{"strings", "$3\r\nabc\r\n$0\r\n\r\n$-1\r\n!3\r\nerr\r\n=7\r\ntxt:abc\r\n", true},
		{"a payload holding CRLF and headers", "$12\r\n*9\r\n$9\r\n:1\r\n\r\n+OK\r\n", true},
		{"the rate-limit script's reply", "*4\r\n:1\r\n:29\r\n$2\r\n-1\r\n$1\r\n2\r\n", true},
		{"nested", "*2\r\n*2\r\n:1\r\n%1\r\n+k\r\n*0\r\n$1\r\nx\r\n*-1\r\n", true},
		{"an attribute before a value", "|1\r\n+ttl\r\n:3\r\n*1\r\n|1\r\n+a\r\n+b\r\n:7\r\n", true},
		{"a push, then a reply", ">2\r\n+invalidate\r\n*1\r\n$1\r\nk\r\n+OK\r\n", true},
		{"many replies each just under the bound", strings.Repeat("$"+strconv.Itoa(len(big))+"\r\n"+big+"\r\n", 3), true},
		{"as deep as allowed", strings.Repeat("*1\r\n", maxRedisDepth) + ":1\r\n", true},

		{"a 100 GB string", "$107374182400\r\n", false},
		{"a string just over the bound", "$" + strconv.Itoa(maxRedisReply) + "\r\n", false},
		{"a string over the bound in pieces", "*2\r\n$" + strconv.Itoa(maxRedisReply/2) + "\r\n" + strings.Repeat("x", maxRedisReply/2) + "\r\n$" + strconv.Itoa(maxRedisReply/2) + "\r\n", false},
		{"a billion elements", "*1000000000\r\n", false},
		{"a map of a hundred million entries", "%100000000\r\n", false},
		{"elements over the bound", "*" + strconv.Itoa(maxRedisReply/redisElementCost+1) + "\r\n", false},
		{"too deep", strings.Repeat("*1\r\n", maxRedisDepth+1), false},
		{"a line that never ends", "+" + strings.Repeat("a", maxRedisReply), false},
		{"a length that overflows", "$99999999999999999999\r\n", false},
		{"a length over the header", "$000000000000000000000000001\r\n", false},
		{"a negative length", "*-2\r\n", false},
		{"a streamed string", "$?\r\n;3\r\nabc\r\n;0\r\n", false},
		{"a length without CR", "$3\nabc\r\n", false},
		{"an unknown type", "hello\r\n", false},
		{"an empty line", "\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{len(tc.stream), 1, 7, 4096} {
				var f respFrames
				var err error
				for s := tc.stream; s != "" && err == nil; {
					k := min(size, len(s))
					err = f.scan([]byte(s[:k]))
					s = s[k:]
				}
				if tc.ok {
					if err != nil {
						t.Fatalf("in reads of %d bytes: %v", size, err)
					}
					if f.payload != 0 || f.lineLen != 0 || len(f.open) != 0 || f.used != 0 {
						t.Fatalf("in reads of %d bytes: the stream ends mid-reply: %+v", size, f)
					}
				} else if !errors.Is(err, errRedisReplyBound) {
					t.Fatalf("in reads of %d bytes: %v, want the connection failed", size, err)
				}
			}
		})
	}
}

// TestBoundRepliesHealthCheck: a bounded TCP connection still lets go-redis
// peek at its socket to find one that Redis closed while it was idle (it
// checks for syscall.Conn); one without a socket of its own (TLS) does not
// pretend to have one, which go-redis would take for a dead connection.
func TestBoundRepliesHealthCheck(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tcp, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	pipe, other := net.Pipe()
	defer pipe.Close()
	defer other.Close()
	for _, tc := range []struct {
		name    string
		conn    net.Conn
		syscall bool
	}{
		{"tcp", tcp, true},
		{"no socket", pipe, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := boundReplies(tc.conn)
			sc, ok := c.(syscall.Conn)
			if ok != tc.syscall {
				t.Fatalf("syscall.Conn: %v, want %v", ok, tc.syscall)
			}
			if ok {
				if _, err := sc.SyscallConn(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
