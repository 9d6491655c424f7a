#!/bin/sh
# Runs inside the image chroot after the packages are in.
set -e
echo xfab-dom0 >/etc/hostname
printf '127.0.0.1 localhost\n127.0.1.1 xfab-dom0\n' >/etc/hosts
# No fsck at boot: the root is a throw-away overlay of a fresh image.
printf '/dev/vda / ext4 rw,noatime,errors=remount-ro 0 0\n' >/etc/fstab
passwd -d root >/dev/null
# The image is final: skip the first-boot ldconfig and catalog rebuilds.
touch /etc/.updated /var/.updated

# Boot speed under TCG: nothing periodic, nothing interactive, no NFS
# (its tools are in the image for the domUs only).
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
	e2scrub_reap.service fstrim.timer dpkg-db-backup.timer \
	xendomains.service getty.target systemd-timesyncd.service \
	nfs-server.service nfs-mountd.service nfsdcld.service nfs-idmapd.service \
	nfs-blkmap.service rpc-statd.service rpc-statd-notify.service \
	rpcbind.service rpcbind.socket nfs-client.target; do
	systemctl mask "$u" >/dev/null 2>&1 || true
done
systemctl enable xfab-run.service

# The toolstack: no autoballooning (dom0_mem is fixed on Xen's command line),
# and domU consoles logged to files the runner streams into the run log.
sed -i 's/^#\?autoballoon=.*/autoballoon="off"/' /etc/xen/xl.conf
grep -q '^autoballoon=' /etc/xen/xl.conf || echo 'autoballoon="off"' >>/etc/xen/xl.conf
mkdir -p /var/log/xen/console /opt/xfab
# Domain consoles into /var/log/xen/console/guest-NAME.log, which the runner
# streams into the run log as it happens.
echo 'XENCONSOLED_ARGS="--log=guest --log-dir=/var/log/xen/console"' >>/etc/default/xen
