/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent protocol. Whatever must happen on a host is done there by
 * this same binary, `iommu-bench agent serve`, started by the host's
 * transport (a plain child for local, a child in the namespace for
 * netns, ssh for ssh, a virtio-console for qemu) and spoken to over its
 * stdin and stdout, one JSON object per line:
 *
 *   request   {"id": 7, "verb": "collect.start", "args": {...}}
 *   response  {"id": 7, "ok": true, "result": {...}}
 *             {"id": 7, "ok": false, "error": "text", "errno": 2}
 *
 * Requests are answered in order; stderr carries the agent's own log.
 * Verbs (args -> result):
 *
 *   hello            {} -> {"protocol", "version", "exe_sha256",
 *                           "boot_id", "kernel_release", "build_id",
 *                           "perf_keys_held" (agent-keys.c)}
 *   facts            {"collectors"?: bool, default true} ->
 *                     hostfacts__gather_opts() JSON (`probe --json`); false
 *                     leaves out what each collector can attach to
 *   policy           {"nic"?} -> {"mode", "source", "summary",
 *                           "evidence": [...], "group"?, "group_type"?,
 *                           "nic_mode"?: the mode the NIC's group type is}
 *   mode.sysfs       {"nic", "type": "DMA"|"DMA-FQ"|"identity"|"auto"}
 *                     -> {"group", "before", "after", "pci", "driver",
 *                         "unbound": bool, "elapsed_ms"}
 *   reboot.prepare   {"method": "kexec"|"grub", "image"?, "initrd"?
 *                     (false: none), "release"? (whose /boot files are
 *                     the defaults; the running one's otherwise),
 *                     "cmdline": [...]} -> {"method", "cmdline"}
 *   reboot.now       {"method"} -> {} (answered before going down)
 *   collect.start    {"collectors": {"bpf": cfg|null, "perf": ...,
 *                     "procstat": ...}, "nic"?, "outdir"?}
 *                     -> {"outdir"?: the folder, absolute, as this
 *                         host sees it (with "outdir" only)}
 *   collect.stop     {} -> {"bpf": results, "perf": ..., "procstat": ...}
 *   file.read        {"path", "offset"? (0), "length"? (the most)}
 *                     -> {"data": base64, "eof": bool, "size": bytes}
 *   file.remove      {"path"} -> {"removed": real path, "entries": n}
 *   kernel.stage     {"dir", "name", "file": "vmlinuz"|"initrd.img"|
 *                     "modules.tar", "offset", "data": base64}
 *                     -> {"size": bytes staged}; appends to
 *                     DIR/NAME.staging/FILE, AGENT_KERNEL_STAGE_MAX
 *                     bytes a call; "offset" must be the staged size
 *                     (EINVAL), 0 starts the file again
 *   kernel.install   {"dir", "name", "release", "build_id",
 *                     "sha256": {"vmlinuz", "initrd.img"?,
 *                     "modules.tar"?}, "initrd": "staged"|"generate"|
 *                     "none", "modules_root"? ("/lib/modules"),
 *                     "boot"?: {"dir"? ("/boot"), "grub"?: true}}
 *                     -> {"image", "initrd", "modules_dir", "initrd_by":
 *                         "staged"|"mkinitramfs"|"dracut"|"mkinitcpio"
 *                         (null: none), "boot_image", "boot_initrd",
 *                         "grub_by": "update-grub"|"grub-mkconfig"|
 *                         "grub2-mkconfig" (null: no "boot"),
 *                         "elapsed_ms"}; checks every
 *                     sha256 (EBADMSG) first, unpacks modules.tar into
 *                     MODULES_ROOT/RELEASE (refused with EEXIST if a
 *                     folder there has no marker of ours), then
 *                     DIR/NAME.staging becomes DIR/NAME; with "boot",
 *                     copies it to BOOT/vmlinuz-RELEASE and
 *                     BOOT/initrd.img-RELEASE (EEXIST for a file there
 *                     no installed.json of ours records) and makes
 *                     grub's menu again (ENOENT: no generator)
 *   kernel.find      {"dir", "name", "build_id", "boot_dir"?} ->
 *                    {"installed": bool, "image"?, "initrd"?,
 *                     "modules_dir"?, "initrd_by"?, "release"?,
 *                     "boot_image", "boot_initrd", "grub_by",
 *                     "why"?: when not}
 *   kernel.pkg_check {"dir", "name", "package", "version"?, "release",
 *                     "arch"?, "need"?: {"installed", "boot"} bytes} ->
 *                    {"status": dpkg's two letters ("ii") or "",
 *                     "version", "ours": installed by this tool,
 *                     "image"?, "initrd"? when "ii", "boot_free"?,
 *                     "boot_need"?}; ENOEXEC: dpkg is for another
 *                     arch; ENOSPC: no room (only with "need");
 *                     EEXIST: another version, or someone else's
 *   kernel.pkg_install {the same, "debs": {"NAME.deb": sha256}} ->
 *                    {"package", "version", "image", "initrd",
 *                     "resumed", "elapsed_ms"}; the .debs staged by
 *                     kernel.stage, checked, installed by `dpkg -i`
 *                     (a half-done install of ours finished by
 *                     `dpkg --configure -a` first; another dpkg's lock
 *                     waited for); DIR/NAME/package.json records it
 *   kernel.pkg_remove {"dir", "name", "package", "release"} ->
 *                    {"removed"}; `dpkg --purge`, only of what
 *                     package.json records (EPERM otherwise), never
 *                     the running release (EBUSY)
 *   iperf3.server    {iperf3 opts} -> {"ports": [...]} once listening
 *   iperf3.wait      {} -> the server's results JSON
 *   iperf3.client    {iperf3 opts} -> the client's results JSON
 *   bye              {} -> {} and the agent exits 0
 *
 * Artifacts (perf.data): an absolute "outdir" is the controller's own
 * folder, for hosts that share its disk (local, netns); a single name
 * ([A-Za-z0-9._-], no "..", not starting with '.' or '-') is a folder
 * the agent makes, 0700, under its artifact root, $TMPDIR (if
 * absolute) or /tmp, then "iommu-bench-artifacts/". collect.stop's
 * results name the files there by absolute path; the controller
 * fetches them with file.read, AGENT_FILE_READ_MAX bytes a call at
 * most (a larger "length" is cut to it), then removes the folder with
 * file.remove. Both verbs resolve "path" (symlinks too) and refuse
 * with EACCES whatever is not strictly below the root, and refuse a
 * root that is not a directory of the agent's user closed to others.
 *
 * The option objects are the JSON the matrix's plan gives (the
 * [collect.NAME] tables, the iperf3 keys of a workload); collectors/
 * turn them into their own structs. Names in args are validated on the
 * agent side too: the agent never trusts its controller's input.
 */
#ifndef IOMMU_BENCH_AGENT_PROTO_H
#define IOMMU_BENCH_AGENT_PROTO_H

/* Bumped on any incompatible change; hello tells the controller. */
#define AGENT_PROTOCOL 1

/*
 * The longest request line the agent reads: the largest a controller
 * sends, kernel.stage's 1 MiB chunk in base64, fits ten times over. A
 * longer one is answered with an error, never allocated.
 */
#define AGENT_MAX_LINE (16u << 20)

/* file.read's chunk: a base64 line of 1.4 MB at most on the wire. */
#define AGENT_FILE_READ_MAX (1u << 20)

#endif /* IOMMU_BENCH_AGENT_PROTO_H */
