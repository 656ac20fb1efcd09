//! The setup screens' state: the target picker (the scratch file, the discovered devices, a
//! typed path) and the progress of the scratch file's layout.

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
        }
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
