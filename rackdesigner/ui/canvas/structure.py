"""Which groups of the scene are collapsed, what each device is drawn as, and the group frames.

A group is collapsed explicitly (`Group.collapsed`), implicitly in the overview (nodes and
trays, `RackScene.level` "overview" or "far"), or as an aggregate block (a cell of
`canvas.cells` in the far level, or one the view has not opened). A device is drawn as itself
or as the outermost collapsed group holding it (its *endpoint*); only devices drawn as
themselves have an item. `_sync_collapse` compares every group's collapsed state with the last
one and re-lays out only the subtrees whose outermost change it is: a level or area change costs
what changes on screen, never the whole design. Mixed into `RackScene`.
"""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import QPointF, QRectF

from rackdesigner.ui import style
from rackdesigner.ui.canvas.cells import block_stats

OVERVIEW_KINDS = ("node", "tray")
#: collapsed in the overview or far out, these cover the area their members take expanded (a
#: GB200 NVL72 rack is one collapsed system of 1.5 x 11 k scene units): a box of the usual
#: collapsed size left 14 NVL72 racks as 8-px specks at the top of empty SU areas at fit
#: (issue 38 item 8); a tile of the rack's own area fills its SU, and the view names it
AREA_KINDS = ("rack",)
LEVELS = ("detail", "overview", "far")


class GroupStructure:
    # ---- collapsed state ---------------------------------------------------------------------
    def _compute_collapsed(self, group_id: str) -> bool:
        group = self.layout.group(group_id)
        if group.collapsed:
            return True
        if group_id in self._cells and (self.level == "far"
                                        or (self.lazy and group_id not in self._open_cells)):
            return True
        if group_id in self._subcells and self.lazy and group_id not in self._open_cells:
            return True
        return self.level != "detail" and group.kind in OVERVIEW_KINDS

    def is_collapsed(self, group_id: str) -> bool:
        state = self._collapsed.get(group_id)
        if state is None:
            state = self._collapsed[group_id] = self._compute_collapsed(group_id)
        return state

    def is_block(self, group_id: str) -> bool:
        """Drawn as an aggregate block (a collapsed cell the user did not collapse)."""
        return (self.is_cell(group_id) and self.is_collapsed(group_id)
                and not self.layout.group(group_id).collapsed)

    def _sync_collapse(self, groups=None) -> None:
        """Recompute the collapsed state of `groups` (default: every group); re-lay out the
        subtrees of the outermost changes."""
        assert self.layout is not None
        old = self._collapsed
        if groups is None:
            new = {g.id: self._compute_collapsed(g.id) for g in self.layout.groups()}
        else:
            new = dict(old)
            new.update((g, self._compute_collapsed(g)) for g in groups
                       if self.layout.has_group(g))
        self._collapsed = new
        self._forget_endpoints()
        roots = []
        for gid in (new if groups is None else [g for g in groups if g in new]):
            state = new[gid]
            if old.get(gid, False) == state:
                continue
            parent, covered = self.layout.group(gid).parent, False
            while parent is not None and not covered:
                # an ancestor collapsed before and after hides the change; a changed ancestor
                # re-lays out this subtree itself
                covered = old.get(parent, False) or new.get(parent, False)
                parent = self.layout.group(parent).parent
            if not covered:
                roots.append(gid)
        if roots:
            self._relayout_groups(roots, old)

    # ---- endpoints ---------------------------------------------------------------------------
    def _chain(self, device_id: str) -> tuple[str, ...]:
        """Groups holding a device, outermost first."""
        gid = self.layout.device(device_id).group
        return () if gid is None else self._group_chain(gid)

    def _group_chain(self, group_id: str) -> tuple[str, ...]:
        """A group and the groups holding it, outermost first (cached per group: a design
        has a few thousand groups and a hundred thousand devices)."""
        chain = self._chains.get(group_id)
        if chain is None:
            layout = self.layout
            groups = []
            gid = group_id
            while gid is not None and layout.has_group(gid):
                groups.append(gid)
                gid = layout.group(gid).parent
            chain = self._chains[group_id] = tuple(reversed(groups))
        return chain

    def _endpoint(self, device_id: str) -> str:
        """What a device is drawn as: itself, or the outermost collapsed group around it."""
        found = self._device_endpoints.get(device_id)
        if found is not None:
            return found
        gid = self.layout.device(device_id).group
        endpoint = None if gid is None else self._group_endpoint(gid)
        found = self._device_endpoints[device_id] = endpoint or device_id
        return found

    def _group_endpoint(self, gid: str) -> str | None:
        """The outermost collapsed group around a group's devices (None: they show)."""
        endpoint = self._endpoints.get(gid, "")
        if endpoint == "":
            endpoint = None
            for outer in self._group_chain(gid):
                if self.is_collapsed(outer):
                    endpoint = outer
                    break
            self._endpoints[gid] = endpoint
        return endpoint

    def _forget_endpoints(self, *device_ids: str) -> None:
        """Drop cached endpoints: of these devices, or (none given) of everything."""
        if device_ids:
            for device_id in device_ids:
                self._device_endpoints.pop(device_id, None)
            return
        self._endpoints.clear()
        self._device_endpoints.clear()

    def _cell_of(self, device_id: str) -> str | None:
        """The cell (`canvas.cells`) holding a device, if any."""
        gid = self.layout.device(device_id).group
        return None if gid is None else self._group_cell(gid)

    def _group_cell(self, group_id: str) -> str | None:
        """The cell holding a group (or the group itself when it is one), if any."""
        for gid in self._group_chain(group_id):
            if gid in self._cells:
                return gid
        return None

    def _hidden_by(self, device_id: str) -> str | None:
        endpoint = self._endpoint(device_id)
        return None if endpoint == device_id else endpoint

    def shows(self, device_id: str) -> bool:
        """True when the device is drawn as its own box (not inside a collapsed group)."""
        item = self.item_for_device.get(device_id)
        return item is not None and item.isVisible()

    def _group_hidden(self, group_id: str) -> bool:
        assert self.layout is not None
        parent = self.layout.group(group_id).parent
        while parent is not None:
            if self.is_collapsed(parent):
                return True
            parent = self.layout.group(parent).parent
        return False

    def _group_depth(self, group_id: str) -> int:
        assert self.layout is not None
        depth, parent = 0, self.layout.group(group_id).parent
        while parent is not None:
            depth += 1
            parent = self.layout.group(parent).parent
        return depth

    # ---- re-laying out ---------------------------------------------------------------------
    def _subtree(self, group_id: str) -> list[str]:
        out, todo = [], [group_id]
        while todo:
            gid = todo.pop()
            out.append(gid)
            todo.extend(self.layout.group_children(gid))
        return out

    def _relayout_groups(self, group_ids: list[str], before: dict[str, bool] | None = None
                         ) -> None:
        """Items and bundles of the devices in these groups' subtrees, after their collapsed
        state changed (`before`: the states before): items made or dropped, their links
        re-bundled — but not a cell's links to a block closed before and after, whose bundle
        stays the pair of cells (`bundling._key`)."""
        layout = self.layout
        devices: list[str] = []
        for gid in group_ids:
            for sub in self._subtree(gid):
                self._dirty_groups.add(sub)
            devices.extend(layout.group_devices(gid))
            self._mark_groups(layout.group(gid).parent, moved=False)
        self._sync_items(devices)
        seen: set[str] = set()
        links = []
        for gid in group_ids:
            own = gid if gid in self._cells else self._subcells.get(gid)
            if own is not None and before is not None:
                for other, cell_links in self._links_by_cell(gid).items():
                    if other is not None and other != own and self._closed_both(other, before):
                        continue
                    for link in cell_links:
                        if link.id not in seen:
                            seen.add(link.id)
                            links.append(link)
                continue
            for device_id in layout.group_devices(gid):
                for link in layout.links_of(device_id):
                    if link.id not in seen:
                        seen.add(link.id)
                        links.append(link)
        self._rekey_many(links)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _closed_both(self, cell: str, before: dict[str, bool]) -> bool:
        """The cell was and is drawn as one block (itself, not inside a collapsed group)."""
        if not (before.get(cell, False) and self._collapsed.get(cell, False)):
            return False
        parent = self.layout.group(cell).parent
        while parent is not None:
            if before.get(parent, False) or self._collapsed.get(parent, False):
                return False
            parent = self.layout.group(parent).parent
        return True

    def _links_by_cell(self, cell: str) -> dict[str | None, list]:
        """A cell's (or sub-cell's) links by the cell at their other end (None: outside every
        cell), kept until a link, device or group in it changes (`_forget_cell_links`)."""
        found = self._cell_links.get(cell)
        if found is None:
            layout = self.layout
            found = defaultdict(list)
            seen: set[str] = set()
            for device_id in layout.group_devices(cell):
                for link in layout.links_of(device_id):
                    if link.id in seen:
                        continue
                    seen.add(link.id)
                    other = link.b.device if link.a.device == device_id else link.a.device
                    found[self._cell_of(other) if layout.has_device(other) else None].append(
                        link)
            self._cell_links[cell] = found
        return found

    def _forget_cell_links(self, *device_ids: str) -> None:
        for device_id in device_ids:
            if self.layout.has_device(device_id):
                for gid in self._chain(device_id):
                    if gid in self._cell_links:
                        del self._cell_links[gid]

    def _sync_items(self, device_ids) -> None:
        """Give each device an item when it is drawn as itself, and take it away when not."""
        index = self.layout.index()
        for device_id in device_ids:
            shown = self._endpoint(device_id) == device_id
            item = self.item_for_device.get(device_id)
            if shown and item is None:
                item = self._add_device_item(device_id)
                item.set_usage(index.port_usage(device_id))
            elif not shown and item is not None:
                self._drop_device_item(device_id)

    # ---- group frames ------------------------------------------------------------------------
    def _mark_groups(self, group_id: str | None, moved: bool = True) -> None:
        """Mark a group and its ancestors for a frame update at the next `flush()` (`moved`:
        their members moved, came or went, so a block's area is measured again)."""
        assert self.layout is not None
        while group_id is not None and self.layout.has_group(group_id):
            self._dirty_groups.add(group_id)
            if moved and self.is_cell(group_id):
                self._forget_cell_rect(group_id)
            group_id = self.layout.group(group_id).parent
        if self._dirty_groups and not self._flush_timer.isActive():
            self._flush_timer.start()

    def _flush_groups(self) -> None:
        if self.layout is None or not self._dirty_groups:
            return
        dirty = [g for g in self._dirty_groups if g in self.item_for_group]
        self._dirty_groups.clear()
        dirty.sort(key=self._group_depth, reverse=True)
        for gid in dirty:
            self._update_group_item(gid)
            for key in self._endpoint_bundles.get(gid, ()):
                self._place_bundle(key)

    def _update_group_item(self, gid: str) -> None:
        assert self.layout is not None
        self.blocks_revision += 1
        item = self.item_for_group[gid]
        if self._group_hidden(gid):
            item.setVisible(False)
            return
        if not self.is_collapsed(gid):
            self._update_frame(gid, item)
            return
        members = self.layout.group_devices(gid)
        if not members:
            item.setVisible(False)
            return
        item.setVisible(True)
        if self.is_block(gid):
            item.set_block(self.cell_rect(gid),
                           block_stats(self.layout, members, self.failed_set.devices))
            return
        if self.is_collapsed(gid):
            xs = [self.layout.device(d).pos for d in members]
            top_left = QPointF(min(p[0] for p in xs), min(p[1] for p in xs))
            area = None
            if self.level != "detail" and self.layout.group(gid).kind in AREA_KINDS:
                area = (max(p[0] for p in xs) - top_left.x() + style.DEVICE_WIDTH,
                        max(p[1] for p in xs) - top_left.y() + style.MIN_DEVICE_HEIGHT)
            item.set_collapsed_box(top_left, self._summary(members), len(members), area)

    def _mark_area_boxes(self) -> None:
        """After a level change: the collapsed boxes of `AREA_KINDS` groups take (or give
        back) their members' area, though their collapsed state did not change."""
        for gid, item in self.item_for_group.items():
            if item.kind in AREA_KINDS and self._collapsed.get(gid, False):
                self._mark_groups(gid, moved=False)

    def _update_frame(self, gid: str, item) -> None:
        """An expanded group's frame around its visible members (hidden when it has none)."""
        rect = QRectF()
        for device_id in self.layout.group_devices(gid, recursive=False):
            device_item = self.item_for_device.get(device_id)
            if device_item is not None:
                rect = rect.united(device_item.sceneBoundingRect())
        for child in self.layout.group_children(gid):
            child_item = self.item_for_group.get(child)
            if child_item is not None and child_item.isVisible():
                rect = rect.united(child_item.frame_rect())
        if rect.isEmpty():
            item.setVisible(False)
            return
        item.setVisible(True)
        m = style.GROUP_MARGIN
        item.set_frame(rect.adjusted(-m, -m - style.GROUP_HEADER, m, m), self._group_depth(gid))

    def _summary(self, members: list[str]) -> list[tuple[str, int, int]]:
        total: dict[str, int] = defaultdict(int)
        used: dict[str, int] = defaultdict(int)
        index = self.layout.index()
        for device_id in members:
            spec = self.layout.spec(device_id)
            if spec is None:
                continue
            usage = index.port_usage(device_id)
            for group in spec.ports:
                total[group.protocol] += group.count
                used[group.protocol] += usage.get(group.name, 0)
        return [(p, used[p], total[p]) for p in sorted(total, key=lambda p: -total[p])]
