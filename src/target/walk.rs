//! Whether a write to a node would land under something in use, and the chain that says why.
//! A write reaches more than its target: going down, a loop device's window of its backing
//! file or device, a partition's part of its disk, an md/dm device's slaves — recursively, so
//! a loop on a file inside a filesystem on a loop on … is followed to the bottom. Every other
//! name of any of those bytes is then as good as written: another loop device on an
//! overlapping window of the same file (by device and inode, so hard links, bind mounts,
//! renamed and deleted files match; an overlay's file as the real file of its layer), a partition over the same sectors, a holder, another
//! path to the same disk (the same WWID, as two SCSI or NVMe paths without dm-multipath).
//! This module walks up from the target and from every place below it, ranges in hand (see
//! `overlap`), and refuses when any other name is mounted, swap, held, an attached loop
//! device, or held open exclusively by someone else.
//!
//! It reads the [`Stack`] snapshot and asks an injectable probe about exclusive holders; it
//! decides, it never opens the target. Byte ranges keep separate windows of one file separate:
//! two loop devices on disjoint windows do not refuse each other.

use std::collections::HashSet;
use std::path::Path;

use super::overlap::{ByteRange, Window, covered};
use super::stack::{Edge, Link, Node, Stack};

/// Whether another program holds the block device at a path exclusively (on the running
/// system `stack::claimed_elsewhere`; fixtures answer `false`).
pub type Probe<'a> = &'a dyn Fn(&Path) -> bool;

const HELD: &str = "held open exclusively by another program (a mount in another mount namespace, a multi-device filesystem or a virtual machine)";

/// A chain found above a node: the steps up ("backs", "/dev/loop1") and how it ends
/// ("mounted on /mnt"); `end` is `None` when it ends at an md/dm holder or an attached loop
/// device with nothing mounted above. `shared`: the bytes of the starting node the first
/// step covers.
struct Chain {
    steps: Vec<(&'static str, String)>,
    end: Option<String>,
    shared: ByteRange,
}

impl Chain {
    /// A chain ending in a mount, swap or exclusive holder beats one that only finds
    /// something attached.
    fn beats(&self, best: &Option<Chain>) -> bool {
        best.as_ref()
            .is_none_or(|b| self.end.is_some() && b.end.is_none())
    }

    /// The steps after the first, and the end: ", which backs /dev/loop2, mounted on /mnt".
    fn rest(&self) -> String {
        let mut out: String = self.steps[1..]
            .iter()
            .map(|(verb, path)| format!(", which {verb} {path}"))
            .collect();
        match &self.end {
            Some(end) => out.push_str(&format!(", {end}")),
            None => out.push_str(" (in use, though nothing above it is mounted)"),
        }
        out
    }
}

/// A place a write to the target reaches below it.
struct Place {
    node: Node,
    /// The bytes of it the write reaches.
    range: ByteRange,
    /// How it was reached from the place above it.
    link: Link,
    shown: String,
    /// The place above it; `None`: the target.
    parent: Option<usize>,
}

/// One refusal check: the snapshot, the probe, and the nodes on the write's own path down,
/// which are never "another name" of it.
struct Walk<'a> {
    stack: &'a Stack,
    probe: Probe<'a>,
    path: HashSet<Node>,
}

impl Stack {
    /// Why writing anywhere in `target` (shown as `shown`) would hit something in use; `None`
    /// if free. Asks no exclusive-holder probe: for fixtures and the whole-target case.
    pub fn refusal(&self, target: Node, shown: &str) -> Option<String> {
        self.refusal_in(target, ByteRange::ALL, shown, &|_| false)
    }

    /// Why writing bytes `range` of `target` would hit something in use: the chain up to a
    /// mount or swap (else to a holder or attached loop device), above the target or beside
    /// it — another name of the bytes it reaches. `None` when the write is safe.
    pub fn refusal_in(
        &self,
        target: Node,
        range: ByteRange,
        shown: &str,
        probe: Probe,
    ) -> Option<String> {
        if let Some(end) = self.end_at(target) {
            return Some(format!("{shown} is {end}"));
        }
        let (places, cycle) = self.places_below(target, range);
        if let Some(i) = cycle {
            return Some(format!(
                "{shown} {} (a loop of loop devices)",
                down_chain(&places, i)
            ));
        }
        let walk = Walk {
            stack: self,
            probe,
            path: places.iter().map(|p| p.node).chain([target]).collect(),
        };
        let mut found: Vec<(String, bool)> = Vec::new();
        if let Some(c) = walk.above(target, range, false, &mut HashSet::new()) {
            let (verb, path) = &c.steps[0];
            found.push((
                format!("{shown} {verb} {path}{}", c.rest()),
                c.end.is_some(),
            ));
        }
        for (i, p) in places.iter().enumerate() {
            if let Some(end) = walk.own_use(p) {
                found.push((format!("{shown} {}, {end}", down_chain(&places, i)), true));
            }
            let skip_holders = p.link == Link::Holder;
            if let Some(c) = walk.above(p.node, p.range, skip_holders, &mut HashSet::new()) {
                let through = through(&places, i);
                found.push((
                    format!(
                        "{shown} shares bytes {} of {}{through} with {}{}",
                        c.shared.describe(),
                        p.shown,
                        c.steps[0].1,
                        c.rest()
                    ),
                    c.end.is_some(),
                ));
            }
        }
        let worst = found.iter().position(|(_, ends)| *ends).unwrap_or(0);
        found.into_iter().nth(worst).map(|(text, _)| text)
    }

    /// Where bytes `a_range` of `a` and `b_range` of `b` are the same storage under two
    /// names: a place both reach — `a` or `b` themselves, or what lies below either (a loop
    /// device's backing file or device, a partition's disk, an md/dm device's slaves, another
    /// path to the same disk) — with bytes in common: that place's name ("" when it is `a` or
    /// `b` itself) and the bytes of it both reach. `None`: they share nothing. Two loop
    /// devices on disjoint windows of one file stay apart; reads are judged as writes would be.
    pub fn shared_storage(
        &self,
        a: Node,
        a_range: ByteRange,
        b: Node,
        b_range: ByteRange,
    ) -> Option<(String, ByteRange)> {
        let reach = |n: Node, r: ByteRange| -> Vec<(Node, ByteRange, String)> {
            let (places, _) = self.places_below(n, r);
            let below = places.into_iter().map(|p| (p.node, p.range, p.shown));
            std::iter::once((n, r, String::new()))
                .chain(below)
                .collect()
        };
        let from_b = reach(b, b_range);
        reach(a, a_range)
            .into_iter()
            .find_map(|(node, range, shown)| {
                from_b.iter().find_map(|(other, other_range, other_shown)| {
                    let both = range.intersect(*other_range).filter(|_| *other == node)?;
                    let name = if shown.is_empty() {
                        other_shown
                    } else {
                        &shown
                    };
                    Some((name.clone(), both))
                })
            })
    }

    /// Every place a write of `range` of `target` reaches below it (and beside it: another
    /// path to the same disk), depth first, and the index of a place that is its own ancestor
    /// (a loop of loop devices, which the kernel refuses to build but a fixture or a race may
    /// show).
    fn places_below(&self, target: Node, range: ByteRange) -> (Vec<Place>, Option<usize>) {
        let mut out: Vec<Place> = Vec::new();
        let mut todo = vec![(target, range, None)];
        // By node and range: a disk reached through two of its partitions (an md array on
        // both) is two places, one per range.
        let mut seen = HashSet::from([(target, range)]);
        while let Some((node, range, parent)) = todo.pop() {
            for e in self.lowers(node) {
                let r = match e.window {
                    Some(w) => match w.down(range) {
                        Some(r) => r,
                        None => continue,
                    },
                    None => ByteRange::ALL,
                };
                // Only loop devices can close a cycle; another path to the same disk leads
                // back to the one it came from by design.
                let ancestor = e.lower == target
                    || std::iter::successors(parent, |&i: &usize| out[i].parent)
                        .any(|i| out[i].node == e.lower);
                if ancestor && e.link == Link::Loop {
                    out.push(place(&e, r, parent));
                    let last = out.len() - 1;
                    return (out, Some(last));
                }
                if seen.insert((e.lower, r)) {
                    out.push(place(&e, r, parent));
                    todo.push((e.lower, r, Some(out.len() - 1)));
                }
            }
        }
        (out, None)
    }
}

impl Walk<'_> {
    /// What makes a place below the target in use by itself: mounted, swap, or (a block
    /// device our own path does not hold, without partitions) held exclusively elsewhere.
    fn own_use(&self, p: &Place) -> Option<String> {
        if let Some(end) = self.stack.end_at(p.node) {
            return Some(end);
        }
        let dev = self.stack.dev(p.node)?;
        // An md/dm device holds its slaves itself; a disk is held whenever any partition is.
        let ours = p.link == Link::Holder || self.stack.partitioned(p.node);
        (!ours && (self.probe)(Path::new(&dev.info.path))).then(|| HELD.to_string())
    }

    /// The worst chain above bytes `range` of `node`, leaving out the write's own path.
    /// `skip_holders`: reached from an md/dm device, whose fellow holders (other LVs on one
    /// PV) use other bytes, which sysfs does not map.
    fn above(
        &self,
        node: Node,
        range: ByteRange,
        skip_holders: bool,
        seen: &mut HashSet<Node>,
    ) -> Option<Chain> {
        if !seen.insert(node) {
            return None;
        }
        let edges = self.stack.uppers(node);
        let table = partition_table_touched(&edges, range);
        let mut best: Option<Chain> = None;
        for e in &edges {
            if (skip_holders && e.link == Link::Holder) || self.path.contains(&e.upper.node()) {
                continue;
            }
            let (upper_range, shared) = match (e.link, e.window) {
                (Link::Partition, w) if table => (
                    ByteRange::ALL,
                    w.and_then(|w| w.below().intersect(range)).unwrap_or(range),
                ),
                (_, Some(w)) => match w.up(range) {
                    Some(r) => (r, w.below().intersect(range).unwrap_or(range)),
                    None => continue,
                },
                (_, None) => (ByteRange::ALL, range),
            };
            if let Some(mut c) = self.reach(e, upper_range, seen) {
                c.shared = shared;
                if c.beats(&best) {
                    best = Some(c);
                }
            }
        }
        best
    }

    /// The chain from the lower end of `e` through its upper device, which sees bytes
    /// `range` of itself: its own mount or swap, else what is above it, else an exclusive
    /// holder, else the device itself when being attached (a loop device) or assembled (md/dm)
    /// is use enough; a partition on its own is not.
    fn reach(&self, e: &Edge, range: ByteRange, seen: &mut HashSet<Node>) -> Option<Chain> {
        let node = e.upper.node();
        let step = (e.link.up_verb(), e.upper.info.path.clone());
        let mut chain = match self.stack.end_at(node) {
            Some(end) => Some(Chain {
                steps: vec![],
                end: Some(end),
                shared: range,
            }),
            None => self.above(node, range, false, seen),
        };
        let unexplained = chain.as_ref().is_none_or(|c| c.end.is_none());
        if unexplained
            && !self.stack.partitioned(node)
            && (self.probe)(Path::new(&e.upper.info.path))
        {
            chain = Some(Chain {
                steps: vec![],
                end: Some(HELD.into()),
                shared: range,
            });
        }
        let in_use_alone = e.link == Link::Holder || e.upper.attached();
        match chain {
            Some(mut c) => {
                c.steps.insert(0, step);
                Some(c)
            }
            None if in_use_alone => Some(Chain {
                steps: vec![step],
                end: None,
                shared: range,
            }),
            None => None,
        }
    }
}

/// Whether a write of `range` of a disk touches bytes outside every partition (the table,
/// which describes them all), or the partitions' places are unknown: then every partition
/// counts as written.
fn partition_table_touched(edges: &[Edge], range: ByteRange) -> bool {
    let parts: Vec<Option<Window>> = edges
        .iter()
        .filter(|e| e.link == Link::Partition)
        .map(|e| e.window)
        .collect();
    if parts.is_empty() {
        return false;
    }
    let known: Vec<Window> = parts.iter().flatten().copied().collect();
    known.len() < parts.len() || !covered(range, &known)
}

fn place(e: &Edge, range: ByteRange, parent: Option<usize>) -> Place {
    Place {
        node: e.lower,
        range,
        link: e.link,
        shown: e.lower_shown.clone(),
        parent,
    }
}

/// The places from the target's first step down to `places[i]`, top first.
fn lineage(places: &[Place], i: usize) -> Vec<&Place> {
    let mut out: Vec<&Place> = std::iter::successors(Some(i), |&j| places[j].parent)
        .map(|j| &places[j])
        .collect();
    out.reverse();
    out
}

/// "is backed by /dev/loop6, which is backed by /data/img": the way down to `places[i]`.
fn down_chain(places: &[Place], i: usize) -> String {
    lineage(places, i)
        .iter()
        .map(|p| format!("{} {}", p.link.down_verb(), p.shown))
        .collect::<Vec<_>>()
        .join(", which ")
}

/// " (through /dev/loop6)": the places between the target and `places[i]`, if any.
fn through(places: &[Place], i: usize) -> String {
    let line = lineage(places, i);
    if line.len() < 2 {
        return String::new();
    }
    let names: Vec<&str> = line[..line.len() - 1]
        .iter()
        .map(|p| p.shown.as_str())
        .collect();
    format!(" (through {})", names.join(", "))
}
