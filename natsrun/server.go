package natsrun

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS server with JetStream running inside this process:
// the single-binary default of `deepresearch serve` when no nats.url is
// configured.
type Embedded struct {
	srv *server.Server
}

// EmbeddedOptions configure an embedded server. The zero value (but for
// StoreDir) is a standalone server on a random loopback port.
type EmbeddedOptions struct {
	// StoreDir holds JetStream's files; required.
	StoreDir string
	// Host and Port to listen on (empty: 127.0.0.1; 0: a random port).
	Host string
	Port int
	// Name names the server (needed in a cluster).
	Name string
	// Token, if not empty, is the authorization token every client must
	// send (nats.Token).
	Token string
	// Cluster, if Routes is not empty, joins the cluster named Cluster,
	// listening for routes on ClusterPort (0: random) and dialing Routes
	// (nats-route://host:port URLs).
	Cluster     string
	ClusterPort int
	Routes      []string
}

// StartEmbedded starts a server and waits until it accepts connections.
func StartEmbedded(o EmbeddedOptions) (*Embedded, error) {
	if o.StoreDir == "" {
		return nil, fmt.Errorf("%w: an embedded server needs a store directory", ErrConfig)
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	opts := &server.Options{ServerName: o.Name, Host: o.Host, Port: o.Port, JetStream: true, StoreDir: o.StoreDir,
		NoSigs: true, NoLog: true, Authorization: o.Token}
	if o.Port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if o.Cluster != "" {
		opts.Cluster = server.ClusterOpts{Name: o.Cluster, Host: o.Host, Port: o.ClusterPort}
		for _, r := range o.Routes {
			opts.Routes = append(opts.Routes, server.RoutesFromStr(r)...)
		}
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsrun: embedded server: %w", err)
	}
	s.Start()
	// The server's own start, timed on real time like all its work.
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("natsrun: embedded server did not start")
	}
	return &Embedded{srv: s}, nil
}

// URL is the client URL of the server (a loopback one when it listens on
// every interface).
func (e *Embedded) URL() string {
	a, ok := e.srv.Addr().(*net.TCPAddr)
	if !ok {
		return e.srv.ClientURL()
	}
	host := a.IP
	if host.IsUnspecified() {
		host = net.IPv4(127, 0, 0, 1)
	}
	return "nats://" + net.JoinHostPort(host.String(), strconv.Itoa(a.Port))
}

// Addr is the address the server listens on for clients.
func (e *Embedded) Addr() net.Addr { return e.srv.Addr() }

// Server is the nats-server itself.
func (e *Embedded) Server() *server.Server { return e.srv }

// Close shuts the server down and waits for it to stop.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
