// CRC-8/SMBUS (polynomial 0x07, initial value 0x00, no reflection, no final XOR), one byte per
// edge. The register is as wide as the byte, so the byte is XORed into it whole and then shifted
// eight times: the same as feeding its bits in one by one, data[7] first.
module crc8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       init,
    input  wire       valid,
    input  wire [7:0] data,
    output wire [7:0] crc
);
    reg [7:0] r;

    assign crc = r;

    function [7:0] absorb(input [7:0] c, input [7:0] d);
        integer i;
        reg [7:0] x;
        begin
            x = c ^ d;
            for (i = 0; i < 8; i = i + 1)
                x = x[7] ? {x[6:0], 1'b0} ^ 8'h07 : {x[6:0], 1'b0};
            absorb = x;
        end
    endfunction

    // init wins over valid: the byte at an init edge belongs to no message.
    always @(posedge clk) begin
        if (!rst_n || init) r <= 8'h00;
        else if (valid)     r <= absorb(r, data);
    end
endmodule
