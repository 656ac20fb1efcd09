//! The setup screens' state: the target picker (the scratch file, the discovered devices, a
//! typed path; rows marked to run several at once) and the progress of the scratch file's
//! layout.

use std::path::PathBuf;

use crate::target::discover::DeviceInfo;

/// A row of the picker.
#[derive(Debug, Clone, PartialEq)]
pub enum PickerRow {
    /// The scratch file in the current directory (`label` says where and how big).
    Scratch { label: String },
    /// A discovered block device.
    Device(Box<DeviceInfo>),
    /// Type a path.
    EnterPath,
}

/// The target picker.
#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub rows: Vec<PickerRow>,
    pub selected: usize,
    /// The path being typed, while the "enter a path" row is being edited.
    pub input: Option<String>,
    /// Why the last choice could not start, or a discovery problem.
    pub message: Option<String>,
    /// A notice that is no problem (a result kept when the last run lost its terminal).
    pub notice: Option<String>,
    /// Rows marked with space, in order: Enter starts on all of them at once.
    pub marked: Vec<usize>,
    /// What backs each loop device, by kernel name (sysfs `loop/backing_file`): the row
    /// says what the device is rather than what its rotational flag claims.
    pub loops: std::collections::HashMap<String, String>,
}

impl Picker {
    /// The scratch row first and selected, then `devices`, then "enter a path".
    pub fn new(scratch_label: String, devices: Vec<DeviceInfo>) -> Picker {
        let mut rows = vec![PickerRow::Scratch {
            label: scratch_label,
        }];
        rows.extend(devices.into_iter().map(|d| PickerRow::Device(Box::new(d))));
        rows.push(PickerRow::EnterPath);
        Picker {
            rows,
            selected: 0,
            input: None,
            message: None,
            notice: None,
            marked: Vec::new(),
            loops: std::collections::HashMap::new(),
        }
    }

    /// Marks the selected row, or unmarks it; "enter a path…" cannot be marked, nor a device
    /// that cannot be opened (the message says why).
    pub fn toggle_mark(&mut self) {
        let i = self.selected;
        match self.rows.get(i) {
            Some(PickerRow::EnterPath) | None => {
                self.message =
                    Some("type a path to run it alone; marks are for the rows above".into());
                return;
            }
            Some(PickerRow::Device(d)) => {
                if let crate::target::discover::Access::Denied(why) = &d.access {
                    self.message = Some(format!("{}: cannot open it ({why}); try as root", d.path));
                    return;
                }
            }
            Some(PickerRow::Scratch { .. }) => {}
        }
        match self.marked.iter().position(|&m| m == i) {
            Some(p) => {
                self.marked.remove(p);
            }
            None => {
                self.marked.push(i);
                self.marked.sort_unstable();
            }
        }
        self.message = None;
    }

    /// The marked rows' targets, in the order shown (the scratch file row is the current
    /// directory, where its scratch file goes).
    pub fn marked_targets(&self) -> Vec<PathBuf> {
        self.marked
            .iter()
            .filter_map(|&i| match self.rows.get(i)? {
                PickerRow::Scratch { .. } => Some(PathBuf::from(".")),
                PickerRow::Device(d) => Some(PathBuf::from(&d.path)),
                PickerRow::EnterPath => None,
            })
            .collect()
    }
}

/// The scratch file being laid out (or the target being opened).
#[derive(Debug, Clone, PartialEq)]
pub struct Preparing {
    /// What is being prepared, e.g. the target's path.
    pub label: String,
    pub done: u64,
    pub total: u64,
}
