// dut_bench.svh: `CONF_TB_BODY(M, N, O): one DUT of the example's ports (module M),
// its conf_bench (bench.sv) named N running O (a case; "": every case), and the
// wires between them, all prefixed M; M_done and M_failed are the
// bench's. Used by tb.sv (one DUT) and bugs.sv (the correct DUT and its planted bugs at once).
// `CONF_TB_BODY_AT(M, N, O, S): the same, its bench reading the suite of plusarg +S=DIR.
`define CONF_TB_BODY(M, N, O) `CONF_TB_BODY_AT(M, N, O, "suite")
`define CONF_TB_BODY_AT(M, N, O, S) \
    wire        ``M``_rst, ``M``_bitslip, ``M``_done, ``M``_failed; \
    wire [63:0] ``M``_serdes_data, ``M``_tdata; \
    wire [1:0]  ``M``_serdes_hdr; \
    wire [7:0]  ``M``_tkeep; \
    wire        ``M``_tvalid, ``M``_tlast, ``M``_tuser, ``M``_bad_frame, \
                ``M``_bad_fcs, ``M``_bad_block, ``M``_lock, ``M``_hi_ber, \
                ``M``_status, ``M``_lf, ``M``_rf, ``M``_tready; \
    wire [31:0] ``M``_errored, ``M``_ber_count, ``M``_good, ``M``_bad, \
                ``M``_fcs_errors, ``M``_tx_frames; \
    wire [63:0] ``M``_tx_data, ``M``_tx_tdata; \
    wire [1:0]  ``M``_tx_hdr; \
    wire [7:0]  ``M``_tx_tkeep; \
    wire        ``M``_tx_tvalid, ``M``_tx_tlast, ``M``_tx_tuser; \
    wire        ``M``_tx_prbs, ``M``_rx_prbs; \
    wire [6:0]  ``M``_error_count; \
    M M``_i ( \
        .rx_clk(clk), .rx_rst(``M``_rst), .tx_clk(clk), .tx_rst(``M``_rst), \
        .tx_axis_tdata(``M``_tx_tdata), .tx_axis_tkeep(``M``_tx_tkeep), \
        .tx_axis_tvalid(``M``_tx_tvalid), .tx_axis_tready(``M``_tready), \
        .tx_axis_tlast(``M``_tx_tlast), .tx_axis_tuser(``M``_tx_tuser), \
        .rx_axis_tdata(``M``_tdata), .rx_axis_tkeep(``M``_tkeep), \
        .rx_axis_tvalid(``M``_tvalid), .rx_axis_tlast(``M``_tlast), \
        .rx_axis_tuser(``M``_tuser), \
        .serdes_tx_data(``M``_tx_data), .serdes_tx_hdr(``M``_tx_hdr), \
        .serdes_rx_data(``M``_serdes_data), .serdes_rx_hdr(``M``_serdes_hdr), \
        .serdes_rx_bitslip(``M``_bitslip), \
        .cfg_tx_prbs31_enable(``M``_tx_prbs), .cfg_rx_prbs31_enable(``M``_rx_prbs), \
        .rx_error_count(``M``_error_count), \
        .rx_error_bad_frame(``M``_bad_frame), .rx_error_bad_fcs(``M``_bad_fcs), \
        .rx_bad_block(``M``_bad_block), .rx_block_lock(``M``_lock), \
        .rx_high_ber(``M``_hi_ber), .rx_status(``M``_status), \
        .rx_local_fault(``M``_lf), .rx_remote_fault(``M``_rf), \
        .rx_errored_blocks(``M``_errored), .rx_ber_count(``M``_ber_count), \
        .rx_frames_good(``M``_good), .rx_frames_bad(``M``_bad), \
        .rx_fcs_errors(``M``_fcs_errors), .tx_frames(``M``_tx_frames) \
    ); \
    conf_bench #(.NAME(N), .ONLY(O), .SUITE_ARG(S)) M``_bench ( \
        .clk(clk), .rst(``M``_rst), \
        .serdes_rx_data(``M``_serdes_data), .serdes_rx_hdr(``M``_serdes_hdr), \
        .serdes_rx_bitslip(``M``_bitslip), \
        .cfg_rx_prbs31_enable(``M``_rx_prbs), .cfg_tx_prbs31_enable(``M``_tx_prbs), \
        .rx_error_count(``M``_error_count), \
        .rx_axis_tdata(``M``_tdata), .rx_axis_tkeep(``M``_tkeep), \
        .rx_axis_tvalid(``M``_tvalid), .rx_axis_tlast(``M``_tlast), \
        .rx_axis_tuser(``M``_tuser), \
        .rx_error_bad_frame(``M``_bad_frame), .rx_error_bad_fcs(``M``_bad_fcs), \
        .rx_block_lock(``M``_lock), .rx_high_ber(``M``_hi_ber), \
        .rx_status(``M``_status), .rx_local_fault(``M``_lf), \
        .rx_remote_fault(``M``_rf), \
        .rx_errored_blocks(``M``_errored), .rx_frames_good(``M``_good), \
        .rx_frames_bad(``M``_bad), .rx_fcs_errors(``M``_fcs_errors), \
        .tx_axis_tdata(``M``_tx_tdata), .tx_axis_tkeep(``M``_tx_tkeep), \
        .tx_axis_tvalid(``M``_tx_tvalid), .tx_axis_tready(``M``_tready), \
        .tx_axis_tlast(``M``_tx_tlast), .tx_axis_tuser(``M``_tx_tuser), \
        .serdes_tx_data(``M``_tx_data), .serdes_tx_hdr(``M``_tx_hdr), \
        .done(``M``_done), .failed(``M``_failed) \
    );
