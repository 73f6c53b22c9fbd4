//! Evidence words of `browser_diagnose`.

use super::wire::wire_choice;

wire_choice! {
    /// Which evidence `browser_diagnose` reads.
    pub enum DiagnoseSource {
        /// Console and network.
        Both => "both",
        /// Console only.
        Console => "console",
        /// Network only.
        Network => "network",
    }
}

wire_choice! {
    /// How much evidence `browser_diagnose` reads.
    pub enum DiagnoseDetail {
        /// Console warnings, errors and exceptions; failed requests and HTTP error responses.
        Problems => "problems",
        /// Problems plus ordinary console events and successful requests.
        All => "all",
    }
}
