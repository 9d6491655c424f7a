# The NFS appliance (sourced after lib.sh in dom0): a storage domU puts
# ext4 on its vbd and exports it over NFSv4.2; a client domU mounts it
# through the network pair. Used by scenario 014 and by the bench's 904.
#   s  storage: the vbd as xvdb (ext4 on /srv), eth0 at NFS_SERVER
#   c  client: eth0 on the same bridge, the export on /mnt/nfs
# NFSv4 only: no rpcbind, no statd; the server's grace period is set to
# its minimum, 10 s, before nfsd starts (a new server refuses opens for
# the whole period, 90 s by default), and the client is booted after the
# server, so the period is mostly over when it mounts.

NFS_SERVER=${NFS_SERVER:-10.0.0.2}
NFS_CLIENT=${NFS_CLIENT:-10.0.0.3}

# nfs_serve NAME DEV: mkfs.ext4 on NAME's DEV, mounted on /srv and
# exported read-write to the bridge's subnet (root not squashed: the
# client's workloads run as root). Fails the scenario if a step fails,
# with the step's output.
nfs_serve() {
	domu_must "$1" 120 "set -e
		mkfs.ext4 -q -F /dev/$2; mkdir -p /srv; mount -t ext4 /dev/$2 /srv
		/usr/sbin/modprobe nfsd
		grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd
		echo 10 >/proc/fs/nfsd/nfsv4gracetime; echo 10 >/proc/fs/nfsd/nfsv4leasetime
		echo '/srv ${NFS_SERVER%.*}.0/24(rw,sync,no_root_squash,no_subtree_check,fsid=0)' >/etc/exports
		exportfs -ra
		rpc.mountd -N 3 --no-udp
		rpc.nfsd -N 3 --no-udp 8
		cat /proc/fs/nfsd/versions" >/dev/null || exit $?
	log "$1 exports /dev/$2 (ext4 on /srv) over NFSv4 at $NFS_SERVER"
}

# nfs_unserve NAME: NAME stops serving (nfsd's threads, the export,
# mountd) and unmounts /srv, so its disk can be detached; nfs_serve
# serves again (a new grace period, as after a server reboot).
nfs_unserve() {
	domu_must "$1" 60 "rpc.nfsd 0 && exportfs -ua && exportfs -f && { pkill -x rpc.mountd || true; } &&
		umount /srv" >/dev/null || exit $?
}

# nfs_mount NAME: NAME mounts the export on /mnt/nfs. The server may still
# be in its grace period: the mount itself is allowed then, and opens
# wait for its end (10 s at most).
nfs_mount() {
	domu_must "$1" 120 "/usr/sbin/modprobe nfsv4 && mkdir -p /mnt/nfs &&
		mount.nfs4 $NFS_SERVER:/ /mnt/nfs -o vers=4.2,proto=tcp,hard &&
		grep ' /mnt/nfs ' /proc/mounts" >/dev/null || exit $?
	log "$1 mounted $NFS_SERVER:/ on /mnt/nfs"
}

# nfs_umount NAME: unmount /mnt/nfs in NAME (its dirty data written
# back first, as umount does).
nfs_umount() {
	domu_must "$1" 120 "umount /mnt/nfs" >/dev/null || exit $?
}
