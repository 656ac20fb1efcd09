//! Alone and together: what `--each-then-all` measured, in words. Every disk ran alone, then
//! all ran at once with the same settings; disks that share nothing add up, so together falls
//! short of the sum of alone only when something on the way is shared and full. The detector
//! says whether that happened ("together 3.1 GB/s, sum of alone 4.8 GB/s: the disks share a
//! limit (HBA, PCIe switch, CPU)"), then which shared thing it may be: the CPU, when it was
//! busy over the together phase, and each parent in the device tree the targets share, as the
//! caller found and described it (sysfs is read in `target::parent`, not here).
//!
//! Thresholds: `thresholds::SHARED_LIMIT_FRACTION` and `thresholds::CPU_LIMIT_BUSY_PCT`.

use super::Finding;
use super::thresholds::{CPU_LIMIT_BUSY_PCT, SHARED_LIMIT_FRACTION};
use super::words::{bytes_per_s, pct};

/// Together fell short of the sum of alone.
pub const KIND_SHARED: &str = "shared_limit";
/// Together added up to the sum of alone.
pub const KIND_INDEPENDENT: &str = "independent";
/// The CPU was busy enough during the together phase to be the limit.
pub const KIND_CPU: &str = "cpu_limit";
/// Targets that share a parent in the device tree.
pub const KIND_PARENT: &str = "shared_parent";

/// The two phases' figures, and what may be shared.
#[derive(Debug, Clone, PartialEq)]
pub struct AloneTogether {
    /// The sum over the targets of each one's bandwidth alone, bytes/s.
    pub alone_sum_bw_bytes_per_s: f64,
    /// All targets at once: the sum of their bandwidths, bytes/s.
    pub together_bw_bytes_per_s: f64,
    /// The busiest the CPU was over the together phase, percent of all cores; `None` when it
    /// could not be read.
    pub cpu_busy_pct: Option<f64>,
    /// Each parent some targets share, described by the caller: "loop1 and loop2: files on
    /// vda, behind PCI 0000:00:02.0 (virtio-pci)".
    pub shared_parents: Vec<String>,
}

impl AloneTogether {
    /// Together as a share of the sum of alone (`None` when nothing ran alone).
    pub fn ratio(&self) -> Option<f64> {
        (self.alone_sum_bw_bytes_per_s > 0.0)
            .then(|| self.together_bw_bytes_per_s / self.alone_sum_bw_bytes_per_s)
    }
}

/// The findings, in reading order: the verdict, then the CPU, then the shared parents.
pub fn findings(x: &AloneTogether) -> Vec<Finding> {
    let Some(ratio) = x.ratio() else {
        return vec![];
    };
    let figures = format!(
        "together {}, sum of alone {} ({})",
        bytes_per_s(x.together_bw_bytes_per_s),
        bytes_per_s(x.alone_sum_bw_bytes_per_s),
        pct(ratio)
    );
    let limited = ratio < SHARED_LIMIT_FRACTION;
    let mut out = vec![if limited {
        Finding::new(
            KIND_SHARED,
            format!("{figures}: the disks share a limit (HBA, PCIe switch, CPU)"),
        )
    } else {
        Finding::new(
            KIND_INDEPENDENT,
            format!("{figures}: the disks do not hold each other back"),
        )
    }];
    if let Some(busy) = x
        .cpu_busy_pct
        .filter(|&b| limited && b >= CPU_LIMIT_BUSY_PCT)
    {
        out.push(Finding::new(
            KIND_CPU,
            format!("the CPU was {busy:.0}% busy while all ran together: the CPU may be the limit"),
        ));
    }
    for parent in &x.shared_parents {
        let text = if limited {
            format!("{parent}: a limit there is shared by them")
        } else {
            format!("{parent}, which kept up with them together")
        };
        out.push(Finding::new(KIND_PARENT, text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(together: f64, cpu: Option<f64>) -> AloneTogether {
        AloneTogether {
            alone_sum_bw_bytes_per_s: 4.8e9,
            together_bw_bytes_per_s: together,
            cpu_busy_pct: cpu,
            shared_parents: vec!["sdb and sdc share PCI 0000:3b:00.0 (mpt3sas)".into()],
        }
    }

    #[test]
    fn together_short_of_the_sum_is_a_shared_limit_and_names_the_cpu_and_the_parent() {
        let f = findings(&at(3.1e9, Some(96.4)));
        let texts: Vec<&str> = f.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "together 3.10 GB/s, sum of alone 4.80 GB/s (65%): the disks share a limit (HBA, PCIe switch, CPU)",
                "the CPU was 96% busy while all ran together: the CPU may be the limit",
                "sdb and sdc share PCI 0000:3b:00.0 (mpt3sas): a limit there is shared by them",
            ]
        );
        assert_eq!(f[0].kind, KIND_SHARED);
        // A CPU with room is not named.
        assert_eq!(findings(&at(3.1e9, Some(89.0))).len(), 2);
        assert_eq!(findings(&at(3.1e9, None)).len(), 2);
    }

    #[test]
    fn together_near_the_sum_is_independent_and_the_cpu_is_not_blamed() {
        let f = findings(&at(4.7e9, Some(99.0)));
        assert_eq!(f[0].kind, KIND_INDEPENDENT);
        assert!(
            f[0].text.ends_with("the disks do not hold each other back"),
            "{}",
            f[0].text
        );
        assert_eq!(f.len(), 2);
        assert!(f[1].text.ends_with("which kept up with them together"));
        // Exactly at the share is not short of it.
        assert_eq!(findings(&at(4.8e9 * 0.8, None))[0].kind, KIND_INDEPENDENT);
        // Nothing ran alone: nothing to say.
        let none = AloneTogether {
            alone_sum_bw_bytes_per_s: 0.0,
            ..at(1.0, None)
        };
        assert!(findings(&none).is_empty());
    }
}
