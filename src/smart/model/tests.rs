//! The report model's unit tests.

use super::*;

#[test]
fn missing_keys_parse() {
    let r = Report::from_json(r#"{"json_format_version":[1,0]}"#).unwrap();
    assert_eq!(r.smartctl, None);
    assert!(r.scsi_self_tests().is_empty());
}

#[test]
fn not_a_report_is_refused_with_a_reason() {
    assert!(
        Report::from_json("[1]")
            .unwrap_err()
            .contains("not an object")
    );
    assert!(Report::from_json("{}").unwrap_err().contains("smartctl"));
    assert!(
        Report::from_json("{")
            .unwrap_err()
            .contains("not valid JSON")
    );
}

#[test]
fn unknown_keys_are_kept() {
    let r = Report::from_json(
        r#"{"smartctl":{"exit_status":0},"rotation_rate":7200,"form_factor":{"name":"3.5 inches"},"scsi_self_test_0":{"code":{"value":1,"string":"Background short"},"result":{"value":7,"string":"Failed in segment -->"},"lba_first_failure":{"value":4242}}}"#,
    )
    .unwrap();
    assert_eq!(r.other["form_factor"]["name"], "3.5 inches");
    assert_eq!(r.rotation_rate, Some(7200));
    let st = r.scsi_self_tests();
    assert_eq!(st.len(), 1);
    assert_eq!(st[0].lba_first_failure.as_ref().unwrap().value, Some(4242));
    let back = serde_json::to_value(&r).unwrap();
    assert_eq!(back["rotation_rate"], 7200);
    assert_eq!(back["form_factor"]["name"], "3.5 inches");
}

#[test]
fn huge_counters_do_not_fail_the_parse() {
    let r = Report::from_json(
        r#"{"smartctl":{},"nvme_smart_health_information_log":{"media_errors":3.4e38,"num_err_log_entries":5}}"#,
    )
    .unwrap();
    let log = r.nvme_smart_health_information_log.unwrap();
    assert_eq!(log.media_errors, None);
    assert_eq!(log.num_err_log_entries, Some(5));
}

#[test]
fn garbled_raw_values_are_none_and_foreign_exit_statuses_refused() {
    let r = Report::from_json(
        r#"{"smartctl":{},"ata_smart_attributes":{"table":[{"id":197,"name":"Current_Pending_Sector","raw":{"value":-3,"string":"-3"}},{"id":5,"name":"Reallocated_Sector_Ct","raw":{"value":"x","string":"x"}}]}}"#,
    )
    .unwrap();
    let t = r.ata_smart_attributes.unwrap().table;
    assert_eq!((t[0].raw.value, t[1].raw.value), (None, None));
    // What was there is kept in words (a negative number is its text).
    assert_eq!(t[0].raw.held, None);
    assert_eq!(t[1].raw.held.as_deref(), Some("the string \"x\""));
    let e = Report::from_json(r#"{"smartctl":{"exit_status":256}}"#).unwrap_err();
    assert!(e.contains("exit status 256"), "{e}");
    assert!(Report::from_json(r#"{"smartctl":{"exit_status":255}}"#).is_ok());
}
