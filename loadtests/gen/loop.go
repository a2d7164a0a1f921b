package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// The sending side: one goroutine, locked to its thread, drives every connection through epoll
// with non-blocking sockets. Go's scheduler would otherwise park and wake a goroutine, a thread
// and its system monitor for each request (futex, nanosleep): at 1,000/s that alone cost ~100 µs
// of CPU per request on this machine, more than the rest of the generator. Here a request costs a
// write, a read and its share of one epoll_wait.

type conn struct {
	fd       int
	busy     bool
	due      time.Time // of the request in flight
	in       []byte    // bytes read, not yet parsed
	inflight int       // index in the recent ring, or -1
}

type loop struct {
	c        config
	s        schedule
	t0       time.Time
	epfd     int
	conns    []*conn
	idle     []*conn
	backlog  []int64 // due requests waiting for an idle connection (oldest first)
	pool     []template
	head     string
	heads    []string // with -tokens: one request head per token, drawn per request
	rng      *rand.Rand
	prefix   []byte
	seq      int64
	req, id  []byte
	recent   [][]byte
	nRecent  int
	parseBuf bytes.Reader
	parser   *bufio.Reader
	body     []byte
	w        *worker
	addr     syscall.SockaddrInet4
}

func dialNonBlocking(addr *syscall.SockaddrInet4) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := syscall.Connect(fd, addr); err != nil && err != syscall.EINPROGRESS {
		syscall.Close(fd)
		return -1, err
	}
	// Wait for the connect to finish (only at start and after an error).
	for i := 0; i < 5000; i++ {
		v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR)
		if err != nil {
			syscall.Close(fd)
			return -1, err
		}
		if v != 0 {
			syscall.Close(fd)
			return -1, syscall.Errno(v)
		}
		if _, err := syscall.Getpeername(fd); err == nil {
			syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
			return fd, nil
		}
		time.Sleep(time.Millisecond)
	}
	syscall.Close(fd)
	return -1, errors.New("connect timed out")
}

func resolve(host string) (syscall.SockaddrInet4, error) {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		return syscall.SockaddrInet4{}, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return syscall.SockaddrInet4{}, err
	}
	ips, err := net.LookupIP(h)
	if err != nil {
		return syscall.SockaddrInet4{}, err
	}
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil {
			a := syscall.SockaddrInet4{Port: port}
			copy(a.Addr[:], v4)
			return a, nil
		}
	}
	return syscall.SockaddrInet4{}, errors.New("no IPv4 address for " + h)
}

func (l *loop) open() (*conn, error) {
	fd, err := dialNonBlocking(&l.addr)
	if err != nil {
		return nil, err
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(fd)}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	c := &conn{fd: fd, in: make([]byte, 0, 4096), inflight: -1}
	return c, nil
}

func (l *loop) close(c *conn) {
	syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
	syscall.Close(c.fd)
	c.fd = -1
}

// epollWait waits up to d (nanosecond resolution with epoll_pwait2, Linux >= 5.11; otherwise
// rounded up to the millisecond); d < 0 waits until an event.
func epollWait(epfd int, events []syscall.EpollEvent, d time.Duration) (int, error) {
	if !noPwait2 {
		var ts *syscall.Timespec
		if d >= 0 {
			t := syscall.NsecToTimespec(int64(d))
			ts = &t
		}
		n, _, e := syscall.RawSyscall6(sysEpollPwait2, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
			uintptr(len(events)), uintptr(unsafe.Pointer(ts)), 0, 0)
		if e == 0 {
			return int(n), nil
		}
		if e != syscall.ENOSYS {
			return 0, e
		}
		noPwait2 = true
	}
	ms := -1
	if d >= 0 {
		ms = int((d + time.Millisecond - 1) / time.Millisecond)
	}
	return syscall.EpollWait(epfd, events, ms)
}

var noPwait2 bool

// Raw system calls: the runtime is not told this thread blocks or calls the kernel. With the usual
// entersyscall/exitsyscall, the system monitor takes the P away from a thread waiting in epoll and
// hands it over (futex and nanosleep on every request, ~200 µs of CPU per request at 1,000/s).
// Nothing else needs the P: this loop is the program's only work while it runs. A GC or
// preemption request waits at most for the next wake-up (timeouts are capped at 50 ms); a
// preemption signal ends the wait early with EINTR, which the loop ignores.
func rawRead(fd int, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func rawWrite(fd int, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

const sysEpollPwait2 = 441 // amd64 and arm64

// run sends the whole schedule and returns when every request is answered or failed.
func (l *loop) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	events := make([]syscall.EpollEvent, 256)
	byFd := make(map[int32]*conn, len(l.conns))
	for _, cn := range l.conns {
		byFd[int32(cn.fd)] = cn
	}
	s, next, pending := l.s, int64(0), 0
	lastSweep := time.Now()
	for next < s.total || pending > 0 || len(l.backlog) > 0 {
		now := time.Now()
		for due := s.dueBy(now.Sub(l.t0)); next < due; next++ {
			l.backlog = append(l.backlog, next)
		}
		// The oldest due requests go to idle connections; the rest wait (their latency counts).
		for len(l.backlog) > 0 && len(l.idle) > 0 {
			cn := l.idle[len(l.idle)-1]
			l.idle = l.idle[:len(l.idle)-1]
			if l.send(cn, l.backlog[0], now) {
				pending++
			} else {
				l.reopen(cn, byFd)
			}
			l.backlog = l.backlog[1:]
		}
		if len(l.backlog) == 0 {
			l.backlog = l.backlog[:0:cap(l.backlog)]
		}
		// Sleep until the next request is due, an answer arrives, or at most 50 ms (timeouts).
		wait := 50 * time.Millisecond
		if next < s.total && len(l.idle) > 0 {
			if d := s.at(next) - time.Since(l.t0); d < wait {
				wait = max(d, 0)
			}
		}
		n, err := epollWait(l.epfd, events, wait)
		if err != nil && err != syscall.EINTR {
			panic(err)
		}
		now = time.Now()
		for k := 0; k < n; k++ {
			cn := byFd[events[k].Fd]
			if cn == nil || !cn.busy {
				continue
			}
			switch l.receive(cn, now) {
			case incomplete:
			case answered:
				pending--
				l.idle = append(l.idle, cn)
			case answeredClosing:
				pending--
				l.close(cn)
				l.reopen(cn, byFd)
			case failed:
				pending--
				l.w.fail(cn.due, now)
				l.close(cn)
				l.reopen(cn, byFd)
			}
		}
		// Requests past their timeout count as errors; their connection is reopened.
		if now.Sub(lastSweep) > 10*time.Millisecond {
			lastSweep = now
			for _, cn := range l.conns {
				if cn.busy && now.Sub(cn.due) > l.c.timeout {
					cn.busy = false
					pending--
					l.w.fail(cn.due, now)
					l.close(cn)
					l.reopen(cn, byFd)
				}
			}
		}
	}
	for _, cn := range l.conns {
		if cn.fd >= 0 {
			l.close(cn)
		}
	}
}

func (l *loop) reopen(cn *conn, byFd map[int32]*conn) {
	for fd, c := range byFd {
		if c == cn {
			delete(byFd, fd)
		}
	}
	nc, err := l.open()
	if err != nil {
		return // this connection is lost; the others carry on
	}
	*cn = *nc
	byFd[int32(cn.fd)] = cn
	l.idle = append(l.idle, cn)
}

// send writes request i on cn; false if the write failed (counted as an error).
func (l *loop) send(cn *conn, i int64, now time.Time) bool {
	due := l.t0.Add(l.s.at(i))
	w := l.w
	if l.nRecent > 0 && l.rng.Float64() < l.c.retryRate {
		l.req = append(l.req[:0], l.recent[l.rng.IntN(min(l.nRecent, len(l.recent)))]...)
		w.retries++
	} else {
		t := &l.pool[l.rng.IntN(len(l.pool))]
		l.id = strconv.AppendInt(append(l.id[:0], l.prefix...), l.seq, 36)
		l.seq++
		head := l.head
		if len(l.heads) > 0 {
			head = l.heads[l.rng.IntN(len(l.heads))]
		}
		l.req = appendRequest(l.req[:0], head, t, l.id, now)
		slot := l.nRecent % len(l.recent)
		l.recent[slot] = append(l.recent[slot][:0], l.req...)
		l.nRecent++
	}
	w.wait.record(uint64(now.Sub(due).Microseconds()))
	for off := 0; off < len(l.req); {
		n, err := rawWrite(cn.fd, l.req[off:])
		if err == syscall.EAGAIN {
			// The socket buffer is full (a request is far smaller than it): wait briefly.
			time.Sleep(50 * time.Microsecond)
			continue
		}
		if err != nil || n <= 0 {
			w.fail(due, now)
			l.close(cn)
			return false
		}
		off += n
	}
	cn.busy = true
	cn.due = due
	cn.in = cn.in[:0]
	return true
}

type outcome int

const (
	incomplete outcome = iota
	answered
	answeredClosing // answered, and the server closes the connection
	failed
)

// receive reads what cn has and records the answer once it is whole.
func (l *loop) receive(cn *conn, now time.Time) outcome {
	for {
		if cap(cn.in)-len(cn.in) < 2048 {
			nb := make([]byte, len(cn.in), 2*cap(cn.in)+2048)
			copy(nb, cn.in)
			cn.in = nb
		}
		n, err := rawRead(cn.fd, cn.in[len(cn.in):cap(cn.in)])
		if err == syscall.EAGAIN {
			break
		}
		if err != nil || n == 0 {
			cn.busy = false
			return failed
		}
		cn.in = cn.in[:len(cn.in)+n]
		if len(cn.in) < cap(cn.in) { // a short read: nothing more for now
			break
		}
	}
	l.parseBuf.Reset(cn.in)
	l.parser.Reset(&l.parseBuf)
	status, body, closing, err := readResponse(l.parser, l.body)
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return incomplete
	}
	cn.busy = false
	if err != nil {
		return failed
	}
	if cap(body) > cap(l.body) {
		l.body = body[:0]
	}
	l.w.answer(status, body, cn.due, now, l.t0, l.s)
	if closing {
		return answeredClosing
	}
	return answered
}

// fail records a request that got no answer (error or timeout). Its latency, up to the failure,
// stays in the histogram: leaving it out would make an overloaded step's tail look shorter.
func (w *worker) fail(due, now time.Time) {
	w.errors++
	w.hist.record(uint64(now.Sub(due).Microseconds()))
}

// answer records one complete answer.
func (w *worker) answer(status int, body []byte, due, now, t0 time.Time, s schedule) {
	w.last = now
	if now.Sub(t0) <= s.at(s.total-1)+time.Duration(float64(time.Second)/s.rate) {
		w.inStep++
	}
	w.hist.record(uint64(now.Sub(due).Microseconds()))
	if status != 200 {
		w.non200++
		return
	}
	w.ok++
	mode, code := classify(body)
	w.modes[string(mode)]++
	if len(code) > 0 {
		w.codes[string(mode)+"/"+string(code)]++
	}
}
