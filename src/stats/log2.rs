//! A coarse latency histogram for drawing: HdrHistogram's recorded values gathered into
//! power-of-two buckets, cheap to merge over the last few snapshots. A run report keeps one
//! of the whole run; JSON writes it as the list of counts up to the last bucket that holds
//! any (`[0, 0, 3, …]`: index i counts latencies in `[2^i, 2^(i+1))` ns).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Latency;

/// Log2 latency buckets: bucket `i` holds latencies in `[2^i, 2^(i+1))` ns.
pub const BUCKETS: usize = 64;

/// A log2 latency histogram: `counts[i]` is the number of latencies in `[2^i, 2^(i+1))` ns.
#[derive(Debug, Clone, PartialEq)]
pub struct Log2Histogram {
    pub counts: [u64; BUCKETS],
}

impl Default for Log2Histogram {
    fn default() -> Self {
        Log2Histogram {
            counts: [0; BUCKETS],
        }
    }
}

impl Serialize for Log2Histogram {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let used = self
            .counts
            .iter()
            .rposition(|n| *n > 0)
            .map_or(0, |i| i + 1);
        self.counts[..used].serialize(s)
    }
}

impl<'de> Deserialize<'de> for Log2Histogram {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let counts = Vec::<u64>::deserialize(d)?;
        if counts.len() > BUCKETS {
            return Err(serde::de::Error::invalid_length(
                counts.len(),
                &"at most 64 log2 buckets",
            ));
        }
        let mut out = Log2Histogram::default();
        out.counts[..counts.len()].copy_from_slice(&counts);
        Ok(out)
    }
}

impl Log2Histogram {
    /// Buckets an HdrHistogram's recorded values.
    pub fn of(l: &Latency) -> Log2Histogram {
        let h = l.histogram();
        let mut out = Log2Histogram::default();
        for v in h.iter_recorded() {
            // The bucket's lowest value: its highest can cross a power of two.
            let value = h.lowest_equivalent(v.value_iterated_to()).max(1);
            let i = (63 - value.leading_zeros()) as usize;
            out.counts[i] += v.count_at_value();
        }
        out
    }

    pub fn add(&mut self, other: &Log2Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Latency;

    #[test]
    fn log2_buckets_place_values_by_power_of_two() {
        let mut h = Latency::default();
        for v in [1000u64, 1023, 1024, 5000, 1_000_000] {
            h.record(v);
        }
        let b = Log2Histogram::of(&h);
        assert_eq!(b.counts[9], 2);
        assert_eq!(b.counts[10], 1);
        assert_eq!(b.counts[12], 1);
        assert_eq!(b.counts[19], 1);
        assert_eq!(b.total(), 5);
        // Saved as the counts up to the last used bucket, and read back whole.
        let text = serde_json::to_string(&b).unwrap();
        assert_eq!(text, "[0,0,0,0,0,0,0,0,0,2,1,0,1,0,0,0,0,0,0,1]");
        let back: Log2Histogram = serde_json::from_str(&text).unwrap();
        assert_eq!(back, b);
        assert!(serde_json::from_str::<Log2Histogram>(&format!("{:?}", vec![1; 65])).is_err());
    }
}
