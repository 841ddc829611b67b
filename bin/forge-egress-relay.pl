#!/usr/bin/perl
# The in-box half of a box's egress door (src/egress/relay-command.ts), in perl: Debian's
# essential perl-base starts in a few milliseconds, where a node relay costs ≈ 40 ms of CPU in
# every box. It decides nothing: it binds the box's own 127.0.0.1:<port>, then runs the box's
# command, and pipes each connection byte for byte to the proxy's Unix socket bound into the
# box (the host-side proxy judges). Everything comes as arguments; nothing is interpolated.
#
#   perl forge-egress-relay.pl <port> <proxy-socket> <command> [args...]
#
# The port listens before the command starts (a connection waits in the kernel's backlog until
# the relay accepts it). The relay is a child in the box's PID namespace: it ends with the box.
use strict;
use warnings;
use Socket;

my ($port, $path, @command) = @ARGV;
sub fail { print STDERR "forge: the egress relay did not start: $_[0]\n"; exit 126 }
fail("usage: forge-egress-relay.pl <port> <socket> <command> [args...]")
  unless defined $port && $port =~ /^\d{1,5}$/ && $port >= 1 && $port <= 65535
  && defined $path && @command;

socket(my $listener, PF_INET, SOCK_STREAM, 0) or fail("socket: $!");
setsockopt($listener, SOL_SOCKET, SO_REUSEADDR, 1) or fail("setsockopt: $!");
bind($listener, pack_sockaddr_in($port, inet_aton("127.0.0.1"))) or fail("bind 127.0.0.1:$port: $!");
listen($listener, 511) or fail("listen: $!");

my $relay = fork();
fail("fork: $!") unless defined $relay;
if ($relay != 0) {
  # The command: without the listener (perl marks it close-on-exec; closed here as well).
  close($listener);
  exec { $command[0] } @command or do {
    print STDERR "forge: cannot start $command[0]: $!\n";
    exit 127;
  };
}

# The relay: one child per connection; none holds the box's stdio (the agent's stdout is its
# transcript).
open(STDIN, "<", "/dev/null");
open(STDOUT, ">", "/dev/null");
open(STDERR, ">", "/dev/null");
$SIG{CHLD} = "IGNORE";
$SIG{PIPE} = "IGNORE";
while (1) {
  accept(my $client, $listener) or next;
  my $child = fork();
  if (defined $child && $child == 0) {
    close($listener);
    pipe_both($client);
    exit 0;
  }
  close($client);
}

# Both directions until both have ended; an end of one side is passed on as a half-close.
sub pipe_both {
  my ($client) = @_;
  socket(my $up, PF_UNIX, SOCK_STREAM, 0) or return;
  connect($up, pack_sockaddr_un($path)) or return;
  my %peer = (fileno($client) => [$client, $up], fileno($up) => [$up, $client]);
  my %open = map { $_ => 1 } keys %peer;
  while (%open) {
    my $rin = "";
    vec($rin, $_, 1) = 1 for keys %open;
    next unless select(my $rout = $rin, undef, undef, undef) > 0;
    for my $fd (keys %open) {
      next unless vec($rout, $fd, 1);
      my ($from, $to) = @{ $peer{$fd} };
      my $n = sysread($from, my $buf, 65536);
      return unless defined $n;    # reset: the exit closes both
      if ($n == 0) {
        shutdown($to, 1);
        delete $open{$fd};
        next;
      }
      my $off = 0;
      while ($off < $n) {
        my $w = syswrite($to, $buf, $n - $off, $off);
        return unless defined $w;
        $off += $w;
      }
    }
  }
}
