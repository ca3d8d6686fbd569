# SPDX-License-Identifier: GPL-2.0-only
#
# A throwaway sshd on 127.0.0.1 for the ssh tests: fresh host and user
# keys under $T_TMP/ssh, root login by key only. Sourced after lib.sh;
# sshd_start sets D (its folder: ssh_config, remote/), PORT, CLOSED (a
# port nothing listens on) and SSHD_PID, which the caller's cleanup
# kills with sshd_stop. It reports "sshd listens" as a check of its own.

SSHD_PID=

# free_port FROM: the first TCP port from FROM up that nothing listens on.
free_port() {
	p=$1
	while ss -Htln "sport = :$p" | grep -q .; do
		p=$((p + 1))
	done
	echo "$p"
}

# sshd_stop: the sshd, if sshd_start started one.
sshd_stop() {
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null || :
	fi
}

sshd_usable() {
	[ "$(id -u)" -eq 0 ] && [ -x /usr/sbin/sshd ] &&
		command -v ssh-keygen >/dev/null
}

sshd_start() {
	# Ports from a range the kernel does not hand out.
	PORT=$(free_port $((20000 + $$ % 5000)))
	CLOSED=$(free_port $((PORT + 1)))

	D="$T_TMP/ssh"
	mkdir -p "$D/remote" /run/sshd
	chmod 700 "$D"
	ssh-keygen -q -t ed25519 -N '' -f "$D/host_key"
	ssh-keygen -q -t ed25519 -N '' -f "$D/user_key"
	cp "$D/user_key.pub" "$D/authorized_keys"
	cat >"$D/sshd_config" <<-EOF2
	Port $PORT
	ListenAddress 127.0.0.1
	HostKey $D/host_key
	PidFile $D/sshd.pid
	AuthorizedKeysFile $D/authorized_keys
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	UsePAM no
	StrictModes no
	Subsystem sftp /usr/lib/openssh/sftp-server
	EOF2
	cat >"$D/ssh_config" <<-EOF2
	Host *
		IdentityFile $D/user_key
		IdentitiesOnly yes
		UserKnownHostsFile /dev/null
		StrictHostKeyChecking no
		Port $PORT
		LogLevel ERROR
	EOF2

	/usr/sbin/sshd -D -e -f "$D/sshd_config" 2>"$D/sshd.log" &
	SSHD_PID=$!
	i=0
	while ! ss -Htln "sport = :$PORT" | grep -q . && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ss -Htln "sport = :$PORT" | grep -q .
	t_ok $? "sshd listens on 127.0.0.1:$PORT"
}
