"""Bundling links for the canvas: links between the same two visible endpoints share one item.

A visible endpoint is a device, or the outermost collapsed group holding it (`RackScene`
decides); a wire to a closed aggregate block (`canvas.cells`) ends at the other end's cell as a
whole, so an open cell has one wire to each block off screen, not one per rack or switch.
The index maps link → bundle key and endpoint → bundle keys, so a moved device
updates only its own wires and a new link touches only its bundle; links whose endpoints change
together (a group collapsing, a cell opening) are re-filed in one pass (`_rekey_many`) that
refreshes each touched bundle once. Mixed into `RackScene`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF

from rackdesigner.model import Link
from rackdesigner.ui.canvas.bundle_item import BundleItem
from rackdesigner.ui.canvas.far_wires import set_batched


class BundleIndex:
    def _key(self, link: Link) -> frozenset[str] | None:
        return self._key_of(self._end_of(link.a.device), self._end_of(link.b.device))

    def _end_of(self, device_id: str, groups: dict | None = None
                ) -> tuple[str, str | None] | None:
        """(what a device is drawn as, its cell or None), or None when it is not in the
        layout: the two facts a link's bundle key reads of each end. Both follow from the
        device's group alone; `groups` keeps them per group across a batch."""
        layout = self.layout
        if not layout.has_device(device_id):
            return None
        gid = layout.device(device_id).group
        if gid is None:
            return device_id, None
        found = None if groups is None else groups.get(gid)
        if found is None:
            found = self._group_facts(gid, {} if groups is None else groups)
        return found[0] or device_id, found[1]

    def _group_facts(self, gid: str, groups: dict) -> tuple[str | None, str | None]:
        """(what group `gid`'s devices are drawn as, its cell or None), filed in `groups`."""
        found = groups[gid] = (self._group_endpoint(gid),
                               self._group_cell(gid) if self._cells else None)
        return found

    def _ends_of_all(self) -> dict[str, tuple[str, str | None]]:
        """`_end_of` of every device, in one walk of the design's device list (each group's
        facts once), which also files what each device is drawn as (`_endpoint`): a new
        32k-GPU design asks both of ~100,000 devices before its first paint, and looking each
        one up again by id cost 0.15 s of the GUI thread."""
        groups: dict[str, tuple[str | None, str | None]] = {}
        ends: dict[str, tuple[str, str | None]] = {}
        endpoints = self._device_endpoints
        for device in self.layout.state.device_list():
            device_id, gid = device.id, device.group
            if gid is None:
                end: tuple[str, str | None] = (device_id, None)
            else:
                found = groups.get(gid) or self._group_facts(gid, groups)
                end = (found[0] or device_id, found[1])
            ends[device_id] = end
            endpoints[device_id] = end[0]
        return ends

    @staticmethod
    def _key_of(a_end: tuple[str, str | None] | None,
                b_end: tuple[str, str | None] | None) -> frozenset[str] | None:
        if a_end is None or b_end is None:
            return None
        (a, ca), (b, cb) = a_end, b_end
        if a == b:
            return None
        # a wire to a closed block (off screen, or far out) leaves the other end's cell as a
        # whole: opening a cell does not split its wires to every block off screen
        if ca != cb:
            if a == ca and cb is not None:
                b = cb
            elif b == cb and ca is not None:
                a = ca
        return frozenset((a, b))

    def _file_link(self, link_id: str, key: frozenset[str]) -> None:
        self.blocks_revision += 1
        self._link_key[link_id] = key
        self._bundle_links[key].add(link_id)
        for endpoint in key:
            self._endpoint_bundles[endpoint].add(key)

    def _unfile_link(self, link_id: str) -> None:
        key = self._link_key.pop(link_id, None)
        if key is None:
            return
        self.blocks_revision += 1
        links = self._bundle_links[key]
        links.discard(link_id)
        if links:
            self._refresh_bundle(key)
            return
        del self._bundle_links[key]
        for endpoint in key:
            self._endpoint_bundles[endpoint].discard(key)
        item = self.bundles.pop(key, None)
        if item is not None:
            self.forget_item(item)
            self.removeItem(item)
            self._labels_timer.start()  # its pill's place is free

    def _rekey_many(self, links, ends: dict | None = None) -> None:
        """Re-file many links, then refresh each bundle that gained or lost one, once
        (`ends`: `_ends_of_all`, when the caller has it)."""
        touched: set[frozenset[str]] = set()
        self.blocks_revision += 1
        # each device's end facts once, not once per link end: a new 32k-GPU design files
        # 303,046 links between ~100,000 devices before its first paint (the endpoints' index
        # of bundles is filed once per touched bundle below, not once per link)
        ends = {} if ends is None else ends
        groups: dict[str, tuple[str | None, str | None]] = {}
        end_of, key_of = self._end_of, self._key_of
        link_key, bundle_links = self._link_key, self._bundle_links
        for link in links:
            lid = link.id
            old = link_key.get(lid)
            a_id, b_id = link.a.device, link.b.device
            a = ends[a_id] if a_id in ends else ends.setdefault(a_id, end_of(a_id, groups))
            b = ends[b_id] if b_id in ends else ends.setdefault(b_id, end_of(b_id, groups))
            # most links of a design opened far out join two devices of one block: no wire
            key = None if a is not None and b is not None and a[0] == b[0] else key_of(a, b)
            if old == key:
                continue
            if old is not None:
                del link_key[lid]
                bundle_links[old].discard(lid)
                touched.add(old)
            if key is not None:
                link_key[lid] = key
                bundle_links[key].add(lid)
                touched.add(key)
        for key in touched:
            if bundle_links.get(key):
                for endpoint in key:
                    self._endpoint_bundles[endpoint].add(key)
                self._refresh_bundle(key)
                continue
            bundle_links.pop(key, None)
            for endpoint in key:
                self._endpoint_bundles[endpoint].discard(key)
            item = self.bundles.pop(key, None)
            if item is not None:
                self.forget_item(item)
                self.removeItem(item)
        if touched:
            self.blocks_revision += 1
            self._labels_timer.start()

    def _rekey(self, link: Link) -> None:
        self._unfile_link(link.id)
        key = self._key(link)
        if key is not None:
            self._file_link(link.id, key)
            self._refresh_bundle(key)

    def _info(self, link: Link) -> tuple[str | None, float]:
        info = self._link_info.get(link.id)
        if info is None:
            layout = self.layout
            a, b = link.a, link.b
            # the same for every link between the same two models' port groups: a 32k-GPU
            # design's 303,046 links have a few dozen such pairs (kept while the layout is)
            pair = (layout.device(a.device).model, a.group, layout.device(b.device).model,
                    b.group)
            if self._pair_catalog is not layout.catalog:  # another catalog, other figures
                self._pair_info.clear()
                self._pair_catalog = layout.catalog
            info = self._pair_info.get(pair)
            if info is None:
                ends = []
                for end in (a, b):
                    spec = layout.spec(end.device)
                    ends.append(spec.port(end.group) if spec and spec.has_port(end.group)
                                else None)
                protocols = {g.protocol for g in ends if g is not None}
                rates = [g.rate_gbps for g in ends if g is not None]
                protocol = protocols.pop() if len(protocols) == 1 else None
                info = self._pair_info[pair] = (protocol, min(rates) if rates else 0.0)
            self._link_info[link.id] = info
        return info

    def _refresh_bundle(self, key: frozenset[str]) -> None:
        assert self.layout is not None
        link_ids = sorted(self._bundle_links.get(key, ()))
        if not link_ids:
            return
        item = self.bundles.get(key)
        if item is None:
            item = self.bundles[key] = BundleItem(key)
            if self.batched_wires:
                set_batched((item,), True)
            self.addItem(item)
        protocols, count, bandwidth = set(), 0, 0.0
        for link_id in link_ids:
            link = self.layout.link(link_id)
            protocol, rate = self._info(link)
            protocols.add(protocol)
            count += link.count
            bandwidth += link.count * rate
        protocol = protocols.pop() if len(protocols) == 1 else None
        item.set_links(link_ids, count, protocol, bandwidth)
        self.blocks_revision += 1
        if self.failed_set:
            state = self._bundle_state(link_ids, self.failed_set.links)
            if item.failed != state:
                item.set_failed(state)
        if self.heat is not None:
            self.heat_bundle(item)
        self._place_bundle(key)

    def _place_bundle(self, key: frozenset[str]) -> None:
        item = self.bundles.get(key)
        if item is None:
            return
        a, b = sorted(key)
        item.set_ends(self._endpoint_center(a), self._endpoint_center(b))
        self._labels_timer.start()

    def _endpoint_center(self, endpoint: str) -> QPointF:
        item = self.item_for_device.get(endpoint) or self.item_for_group.get(endpoint)
        return item.center() if item is not None else QPointF()

