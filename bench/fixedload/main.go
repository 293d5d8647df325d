// Command fixedload sends exactly n GET requests for one path over c
// keep-alive connections and fails on any answer but 200: the load of
// bench/instructions.sh, where counting a server's instructions per request
// needs a known number of requests (wrk runs for a time, not a count).
//
//	fixedload -addr 127.0.0.1:9000 -path /status.json -n 20000 -c 4 [-gzip]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "the server's host:port")
	path := flag.String("path", "/status.json", "the path to request")
	n := flag.Int("n", 20000, "requests in all (a multiple of -c)")
	c := flag.Int("c", 4, "connections")
	gz := flag.Bool("gzip", false, "send Accept-Encoding: gzip, as browsers and most HTTP libraries do")
	flag.Parse()
	if *c < 1 || *n%*c != 0 {
		log.Fatal("-n must be a multiple of -c, and -c at least 1")
	}
	// The request wrk sends, written by hand so that every run sends the
	// same bytes.
	head := "GET " + *path + " HTTP/1.1\r\nHost: " + *addr + "\r\n"
	if *gz {
		head += "Accept-Encoding: gzip\r\n"
	}
	req := []byte(head + "\r\n")
	var wg sync.WaitGroup
	errs := make(chan error, *c)
	for range *c {
		wg.Go(func() { errs <- send(*addr, req, *n / *c) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			log.Fatal(err)
		}
	}
}

// send sends req n times over one connection, reading each answer whole.
func send(addr string, req []byte, n int) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 64<<10)
	for range n {
		if _, err := conn.Write(req); err != nil {
			return err
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET: %s", resp.Status)
		}
	}
	return nil
}
