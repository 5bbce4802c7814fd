// SPDX-License-Identifier: MIT
// Test-only ERC-20 (18 decimals, anyone may mint) placed by the anvil harness at the
// mainnet USDT/USDC addresses. Compiled once with solc 0.8.28 (optimizer 200 runs,
// evmVersion shanghai); the runtime bytecode lives in erc20-bytecode.ts.
// Name/symbol/decimals are constants so the code works after anvil_setCode (no constructor).
pragma solidity 0.8.28;

contract TestToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function name() external pure returns (string memory) { return "Test Token"; }
    function symbol() external pure returns (string memory) { return "TEST"; }
    function decimals() external pure returns (uint8) { return 18; }

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
