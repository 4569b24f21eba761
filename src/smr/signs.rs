//! Signs of shingled recording that need no writing: a pure function of what the
//! device reports about itself. Each sign says what it is: the drive *reporting* a
//! zoned (SMR) model is a fact about the drive; a rotating drive advertising TRIM, or
//! a model string on a vendor's DM-SMR list, is only a *hint* (docs/methods.md,
//! "Hidden SMR").

use super::models;
use crate::results::device::{DeviceInfo, Rotation, ZoneMode};
use crate::results::smr::{SmrSign, SmrSignKind, SmrSignStrength};

/// The signs of shingled recording in a device's description, strongest first.
/// Flash and devices that report nothing get none.
pub fn of(info: &DeviceInfo) -> Vec<SmrSign> {
    let mut signs = Vec::new();
    if let Some(z) = info.zone_mode.and_then(ZoneMode::zoned_words) {
        signs.push(SmrSign {
            kind: SmrSignKind::ZoneModel,
            strength: SmrSignStrength::Reported,
            text: format!(
                "the device reports a {z} zone model: shingled recording, declared (not hidden)"
            ),
            source: None,
        });
    }
    let rotating = matches!(info.rotation, Rotation::Rpm(_));
    if rotating && info.trim {
        signs.push(SmrSign {
            kind: SmrSignKind::TrimOnRotating,
            strength: SmrSignStrength::Hint,
            text: "a rotating drive that advertises TRIM/UNMAP, as drive-managed SMR disks do \
                   (a hint, not a proof: only sustained random writes tell)"
                .to_string(),
            source: None,
        });
    }
    if info.rotation != Rotation::NonRotating
        && let Some(m) = info.descr.as_deref().and_then(models::lookup)
    {
        signs.push(SmrSign {
            kind: SmrSignKind::ModelList,
            strength: SmrSignStrength::Hint,
            text: format!(
                "the model matches {} {}, published by its vendor as drive-managed SMR \
                 (a hint: vendors change recording within a model number)",
                m.vendor, m.family
            ),
            source: Some(m.source.to_string()),
        });
    }
    signs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::device::TargetKind;

    fn disk(descr: &str, rotation: Rotation, trim: bool) -> DeviceInfo {
        let mut i = DeviceInfo::new("/dev/ada0", "/dev/ada0", TargetKind::Disk);
        i.descr = Some(descr.to_string());
        i.rotation = rotation;
        i.trim = trim;
        i
    }

    #[test]
    fn a_conventional_disk_and_flash_show_no_sign() {
        assert!(of(&disk("ST2000DM001-1CH164", Rotation::Rpm(7200), false)).is_empty());
        assert!(of(&disk("Samsung SSD 870", Rotation::NonRotating, true)).is_empty());
        // A flash device whose string happens to match is still flash.
        assert!(of(&disk("WD40EFAX", Rotation::NonRotating, true)).is_empty());
        assert!(of(&DeviceInfo::new("x", "x", TargetKind::File)).is_empty());
    }

    #[test]
    fn trim_on_a_rotating_drive_is_a_hint() {
        let s = of(&disk("ST2000DM001-1CH164", Rotation::Rpm(7200), true));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].kind, SmrSignKind::TrimOnRotating);
        assert_eq!(s[0].strength, SmrSignStrength::Hint);
        assert!(s[0].text.contains("not a proof"));
        // Rotation unknown (USB bridge, loop device): TRIM says nothing.
        assert!(of(&disk("x", Rotation::Unknown, true)).is_empty());
    }

    #[test]
    fn a_listed_model_is_a_hint_naming_its_source() {
        let s = of(&disk("WDC WD40EFAX-68JH4N0", Rotation::Rpm(5400), true));
        assert_eq!(
            s.iter().map(|x| x.kind).collect::<Vec<_>>(),
            [SmrSignKind::TrimOnRotating, SmrSignKind::ModelList]
        );
        assert_eq!(s[1].source.as_deref(), Some("wd-blog"));
        assert!(s[1].text.contains("WD Red 4 TB"), "{}", s[1].text);
        // Unknown rotation (behind a USB bridge) still matches the list.
        let u = of(&disk("WDC WD40EFAX-68JH4N0", Rotation::Unknown, false));
        assert_eq!(u.len(), 1);
    }

    #[test]
    fn a_zoned_model_is_reported_not_hinted() {
        let mut i = disk("HGST HSH721414AL", Rotation::Rpm(7200), false);
        i.zone_mode = Some(ZoneMode::HostManaged);
        let s = of(&i);
        assert_eq!(s[0].kind, SmrSignKind::ZoneModel);
        assert_eq!(s[0].strength, SmrSignStrength::Reported);
        assert!(s[0].text.contains("host-managed"));
        i.zone_mode = Some(ZoneMode::NotZoned);
        assert!(of(&i).is_empty());
    }
}
